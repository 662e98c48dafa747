// Runtime refusals: each rule's bad input is refused with an OpError whose message names the op and the argument.

import { describe, expect, it } from 'vitest';
import {
  device,
  execute,
  full,
  grad,
  ops,
  tensor,
  trace,
  zeros,
  type DType,
  type Tensor,
} from '../../runtime/src/index.ts';
import { OpError } from '../../runtime/src/errors.ts';

const scalar = (v: number) => tensor([v], { dtype: 'float32', shape: [] });

function refusal(f: () => unknown): OpError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OpError);
    return e as OpError;
  }
  throw new Error('expected a refusal');
}

describe('shape-deciding scalars must be finite', () => {
  it.each([
    ['start', [NaN, 1, 1], 'NaN'],
    ['limit', [0, NaN, 1], 'NaN'],
    ['limit', [0, Infinity, 1], 'Infinity'],
    ['delta', [0, 1, -Infinity], '-Infinity'],
  ] as const)('range refuses a non-finite %s', (arg, [s, l, d], shown) => {
    const e = refusal(() => ops.range(scalar(s), scalar(l), scalar(d)));
    expect(e.message).toBe(`raf.op.range (argument '${arg}'): must be a finite number, got ${shown}`);
  });
});

describe('autodiff entry points', () => {
  it('grad refuses an f that returns no Tensor', () => {
    const x = tensor([1, 2], { dtype: 'float32', shape: [2] });
    const e = refusal(() => grad(() => 3 as never)(x));
    expect(e.message).toBe("raf.op.grad (argument 'f'): f must return a Tensor or an array of Tensors, got number 3");
  });
});

// NumPy's reduction dtype (numpy.add.reduce / numpy.multiply.reduce, NumPy 2): bool and signed integers narrower than
// int64 accumulate and return int64, unsigned ones narrower than uint64 return uint64, the rest keep their dtype.
// Each expectation below is worked by hand from that rule: int8 100 + 100 = 200 does not fit int8 (NumPy gives int64
// 200, a wrapping int8 accumulator -56); a sum of booleans counts the trues.
describe('integer and bool reductions accumulate as NumPy does', () => {
  const t = (values: number[], dtype: DType) => tensor(values, { dtype, shape: [values.length] });
  const read = (y: Tensor) => ({ dtype: y.dtype, values: Array.from(y.dataSync()) });

  it.each([
    ['sum', 'int8', [100, 100], 'int64', [200]],
    ['sum', 'int16', [30000, 30000], 'int64', [60000]],
    ['sum', 'int32', [2 ** 31 - 1, 1], 'int64', [2 ** 31]],
    ['sum', 'bool', [1, 1, 1], 'int64', [3]],
    ['sum', 'uint8', [200, 200], 'uint64', [400]],
    ['sum', 'uint32', [2 ** 32 - 1, 1], 'uint64', [2 ** 32]],
    ['sum', 'int64', [2 ** 40, 2 ** 40], 'int64', [2 ** 41]],
    ['sum', 'float32', [0.5, 0.25], 'float32', [0.75]],
    ['prod', 'int8', [100, 100], 'int64', [10000]],
    ['prod', 'int16', [300, 300, -2], 'int64', [-180000]],
    ['prod', 'bool', [1, 0, 1], 'int64', [0]],
    ['prod', 'uint16', [1000, 1000], 'uint64', [1000000]],
  ] as const)('%s of %s %j gives %s %j', (op, dtype, values, wantDtype, want) => {
    const y = op === 'sum' ? ops.sum(t([...values], dtype)) : ops.prod(t([...values], dtype));
    expect(read(y)).toEqual({ dtype: wantDtype, values: want });
  });

  it('keeps the kept axes and sums along the one asked for', () => {
    // [[100, 100, 100], [-100, -100, 27]] int8 summed over axis 1: 300 and -173, neither fits int8.
    const x = tensor([100, 100, 100, -100, -100, 27], { dtype: 'int8', shape: [2, 3] });
    const y = ops.sum(x, [1], true);
    expect(y.shape).toEqual([2, 1]);
    expect(read(y)).toEqual({ dtype: 'int64', values: [300, -173] });
  });

  it('a traced graph computes the same dtype and value as the eager call', () => {
    const g = trace((x: Tensor) => ops.sum(x), [{ shape: [2], dtype: 'int8' }]);
    const [y] = execute(g, [t([100, 100], 'int8')]);
    expect(read(y!)).toEqual({ dtype: 'int64', values: [200] });
  });

  it('a product beyond int64 storage (2^53) is refused, not rounded', () => {
    const big = t([2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1], 'int32');
    expect(refusal(() => ops.prod(big)).message).toMatch(/^raf\.op\.prod \(argument 'out'\): /);
  });

  it('cumsum of bool counts in int64 (NumPy: a running count of trues)', () => {
    expect(read(ops.cumsum(t([1, 0, 1, 1], 'bool'), 0))).toEqual({ dtype: 'int64', values: [1, 1, 2, 3] });
  });

  // np.cumsum / np.cumprod accumulate as np.sum does: int8 [100, 100] runs 100, 200 (an int8 scan would wrap to -56).
  it.each([
    ['cumsum', 'int8', [100, 100], 'int64', [100, 200]],
    ['cumsum', 'int16', [30000, 30000], 'int64', [30000, 60000]],
    ['cumsum', 'uint8', [200, 100], 'uint64', [200, 300]],
    ['cumsum', 'uint16', [60000, 60000], 'uint64', [60000, 120000]],
    ['cumprod', 'int8', [16, 16, 2], 'int64', [16, 256, 512]],
    ['cumprod', 'uint8', [255, 2], 'uint64', [255, 510]],
    ['cumprod', 'bool', [1, 1, 0], 'int64', [1, 1, 0]],
  ] as const)('%s of %s %j gives %s %j', (op, dtype, values, want, out) => {
    const x = t([...values], dtype);
    const y = op === 'cumsum' ? ops.cumsum(x, 0) : ops.cumprod(x, 0);
    expect(read(y)).toEqual({ dtype: want, values: [...out] });
  });

  it('cumsum with a dtype given keeps it (int8 wraps as asked)', () => {
    expect(read(ops.cumsum(t([100, 100], 'int8'), 0, 'int8')).dtype).toBe('int8');
  });
});

// NumPy 2's bool arithmetic: `+` and `*` on booleans are logical or / and (results stay bool, so True + True is True),
// unary and binary `-` raise a TypeError ("numpy boolean negative/subtract ... is not supported").
describe('bool arithmetic follows NumPy', () => {
  const b = (values: number[]) => tensor(values, { dtype: 'bool', shape: [values.length] });

  it('add of bools is a logical or, multiply a logical and', () => {
    expect(Array.from(ops.add(b([1, 1, 0, 0]), b([1, 0, 1, 0])).dataSync())).toEqual([1, 1, 1, 0]);
    expect(ops.add(b([1]), b([1])).dtype).toBe('bool');
    expect(Array.from(ops.multiply(b([1, 1, 0, 0]), b([1, 0, 1, 0])).dataSync())).toEqual([1, 0, 0, 0]);
  });

  it('negative of bool is refused, naming x and what to use instead', () => {
    expect(refusal(() => ops.negative(b([1, 0]))).message).toBe(
      "raf.op.negative (argument 'x'): dtype bool is not supported: NumPy refuses negative of booleans too; use raf.op.logical_not, or cast to an integer first (raf.op.cast)",
    );
  });

  it('subtract of bools is refused, naming a', () => {
    expect(refusal(() => ops.subtract(b([1, 0]), b([0, 0]))).message).toBe(
      "raf.op.subtract (argument 'a'): dtype bool is not supported: NumPy refuses subtract of booleans too; use raf.op.logical_xor, or cast to an integer first (raf.op.cast)",
    );
  });

  it('integer negative and subtract are unaffected', () => {
    const i = tensor([3, -2], { dtype: 'int32', shape: [2] });
    expect(Array.from(ops.negative(i).dataSync())).toEqual([-3, 2]);
    expect(Array.from(ops.subtract(i, i).dataSync())).toEqual([0, 0]);
  });
});

describe('shape-deciding numbers must be integers (NaN refused, naming the argument)', () => {
  const x = tensor([1, 2, 3], { dtype: 'float32', shape: [3] });
  it.each([
    [
      'full',
      () => full([NaN], 1),
      "raf.op.full (argument 'shape'): must be a list of non-negative integers; element 0 is NaN",
    ],
    [
      'zeros',
      () => zeros([2, NaN]),
      "raf.op.zeros (argument 'shape'): must be a list of non-negative integers; element 1 is NaN",
    ],
    ['topk', () => ops.topk(x, NaN), "raf.op.topk (argument 'k'): expects int, got NaN"],
    ['tile', () => ops.tile(x, [NaN]), "raf.op.tile (argument 'reps'): expects int[], got [NaN]"],
    ['reshape', () => ops.reshape(x, [NaN]), "raf.op.reshape (argument 'shape'): expects int[], got [NaN]"],
    ['split', () => ops.split(x, NaN), "raf.op.split (argument 'indices_or_sections'): expects int|int[], got NaN"],
  ] as const)('%s', (_, f, message) => {
    expect(refusal(f).message).toBe(message);
  });
});

describe('refusals name the argument', () => {
  it('concatenate([]) names xs', () => {
    expect(refusal(() => ops.concatenate([])).message).toBe(
      "raf.op.concatenate (argument 'xs'): needs at least one tensor, got an empty list",
    );
  });

  it.each(['tpu', 'cuda(0)', 'webgpu(-1)', ''])('device(%j) is an OpError naming spec and listing the devices', (d) => {
    expect(refusal(() => device(d as never)).message).toBe(
      `raf.op.device (argument 'spec'): unknown device ${JSON.stringify(d)}; valid devices: cpu, webgpu, cpu(N), webgpu(N)`,
    );
  });

  it('.to() a device that does not exist is an OpError naming target', async () => {
    const x = tensor([1], { dtype: 'float32', shape: [1] });
    await expect(x.to(device('webgpu(1)'))).rejects.toBeInstanceOf(OpError);
    await expect(x.to(device('webgpu(1)'))).rejects.toThrow(
      /^raf\.op\.to \(argument 'target'\): cannot move .* only webgpu\(0\) exists/,
    );
  });
});
