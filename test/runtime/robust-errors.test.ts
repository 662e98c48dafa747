// Every runtime failure is an OpError naming the op and the argument: bad tensor construction, reductions without
// identity over an empty axis, and allocations over the configurable limit, refused before anything is allocated.
import { afterEach, describe, expect, it } from 'vitest';

import {
  OpError,
  full,
  getMaxTensorBytes,
  ones,
  ops,
  randomUniform,
  setMaxTensorBytes,
  tensor,
  zeros,
} from '../../runtime/src/index.ts';

/** Runs f and returns its error, which must be an OpError. */
function opError(f: () => unknown): OpError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OpError);
    return e as OpError;
  }
  throw new Error('expected an OpError, nothing was thrown');
}

describe('tensor construction refuses what is not numbers', () => {
  it.each([
    ['strings', ['a', 'b'], /element \[0\] is the string "a"/],
    ['null', null, /got null/],
    ['a null element', [1, null], /element \[1\] is null/],
    ['an object', { length: 2 }, /got a Object/],
    ['a nested string', [[1], ['x']], /element \[1, 0\] is the string "x"/],
    ['a ragged list', [[1, 2], [3]], /ragged nested list: element \[1\] has 1 items, expected a list of 2/],
    ['a list deeper than its first row', [[1], [[2]]], /ragged nested list: element \[1, 0\] is a list/],
    [
      'an int64 BigInt beyond 2^53',
      BigInt64Array.of(1n, 2n ** 60n),
      /int64 value 1152921504606846976 at index 1 is beyond ±2\^53/,
    ],
  ])('%s', (_, values, message) => {
    const e = opError(() => tensor(values as never));
    expect(e.op).toBe('tensor');
    expect(e.arg).toBe('values');
    expect(e.message).toMatch(message);
  });

  it('an unknown dtype and a shape the values do not fill', () => {
    expect(opError(() => tensor([1], { dtype: 'float128' as never })).message).toBe(
      'raf.op.tensor (argument \'dtype\'): unknown dtype "float128"; expected one of float16, float32, float64, int64, int32, int8, uint8, bool, bfloat16, int16, uint16, uint32, uint64',
    );
    expect(opError(() => tensor([1, 2, 3], { shape: [2, 2] })).arg).toBe('shape');
  });

  it('still builds from numbers, booleans, nested lists and typed arrays', () => {
    expect(
      Array.from(
        tensor([
          [1, 2],
          [3, 4],
        ]).dataSync(),
      ),
    ).toEqual([1, 2, 3, 4]);
    expect(Array.from(tensor([true, false], { dtype: 'bool' }).dataSync())).toEqual([1, 0]);
    expect(tensor([]).shape).toEqual([0]);
    expect(tensor(Int32Array.of(1, 2)).dtype).toBe('int32');
    expect(Number.isNaN(tensor([NaN]).item())).toBe(true);
  });
});

describe('shapes and dtypes of zeros, ones, full, randomUniform', () => {
  it.each([
    ['zeros', () => zeros([2.5])],
    ['zeros', () => zeros(['2'] as never)],
    ['ones', () => ones([-1])],
    ['full', () => full(3 as never, 1)],
    ['randomUniform', () => randomUniform([2, NaN])],
  ])('%s refuses a shape that is not non-negative integers', (op, f) => {
    const e = opError(f);
    expect(e.op).toBe(op);
    expect(e.arg).toBe('shape');
    expect(e.message).toMatch(/must be a list of non-negative integers/);
  });

  it('refuses an unknown dtype by name instead of a TypeError', () => {
    expect(opError(() => zeros([2], 'float128' as never)).message).toMatch(/raf\.op\.zeros \(argument 'dtype'\)/);
  });
});

describe('reductions without identity refuse an empty axis', () => {
  it.each([
    ['max', () => ops.max(zeros([0, 3]), [0])],
    ['min', () => ops.min(zeros([2, 0]), null)],
    ['argmax', () => ops.argmax(zeros([3, 0]), 1)],
    ['argmin', () => ops.argmin(zeros([0]))],
  ])('%s', (op, f) => {
    const e = opError(f);
    expect(e.op).toBe(op);
    expect(e.arg).toBe('axis');
    expect(e.message).toMatch(/of length 0/);
  });

  it('but reduce the non-empty axes of an empty tensor, and sum over an empty axis is 0', () => {
    expect(ops.max(zeros([0, 3]), [1]).shape).toEqual([0]);
    expect(Array.from(ops.sum(zeros([0, 3]), [0]).dataSync())).toEqual([0, 0, 0]);
  });
});

describe('allocations over the limit are refused before they are attempted', () => {
  const initial = getMaxTensorBytes();
  afterEach(() => {
    setMaxTensorBytes(initial);
  });

  it('a huge zeros() and a huge broadcast result, by op and argument', () => {
    expect(opError(() => zeros([1e6, 1e6])).message).toMatch(
      /raf\.op\.zeros \(argument 'shape'\): a float32 tensor of shape \[1000000, 1000000\] needs 4000000000000 bytes/,
    );
    const e = opError(() => ops.add(zeros([100000, 1]), zeros([1, 100000])));
    expect([e.op, e.arg]).toEqual(['add', 'out']);
  });

  it('the limit is configurable', () => {
    setMaxTensorBytes(64);
    expect(zeros([16]).size).toBe(16); // 64 bytes of float32
    expect(opError(() => zeros([17])).message).toMatch(/needs 68 bytes, over the limit of 64/);
    expect(opError(() => tensor([1, 2, 3, 4, 5, 6, 7, 8, 9], { dtype: 'float64' })).op).toBe('tensor');
    const x = zeros([4, 4]);
    expect(opError(() => ops.concatenate([x, x], 0)).arg).toBe('out');
    expect(() => setMaxTensorBytes(0)).toThrow(RangeError);
  });
});
