// The dispatcher: levels, fallback, withDialect, the seeds' failure message, and errors that name op and argument.

import { afterEach, describe, expect, it } from 'vitest';
import {
  call,
  DispatchError,
  dispatchStats,
  OpError,
  ops,
  registerDialect,
  tensor,
  withDialect,
  type Tensor,
} from '../../runtime/src/index.ts';
import { registerDialectOps, allDialectOps, type AnyDialectOp } from '../../runtime/src/dialect.ts';
import { exp } from '../../runtime/src/generated/api/exp.ts';
import { expBridge } from '../../runtime/src/generated/bridge/exp.ts';
import { expCpu } from '../../runtime/src/generated/dialects/cpu/exp.ts';

const x = tensor([[0, 1, 2]], { dtype: 'float64' });

describe('dialect choice', () => {
  const original = [...allDialectOps('exp')];
  afterEach(() => registerDialectOps(original));

  it('takes the highest level whose kernel builds, and falls back when a dialect declines', () => {
    const calls: string[] = [];
    registerDialect({ name: 'fast', devices: ['cpu'] });
    registerDialect({ name: 'picky', devices: ['cpu'] });
    const counting = (name: string, level: number, accept: boolean): AnyDialectOp => ({
      op: 'exp',
      dialect: name,
      level,
      bridge: expBridge,
      build: (_attrs, out) =>
        accept && out.dtype === 'float64' ? (i, a, o) => (calls.push(name), expCpu(i, a, o)) : null,
    });
    registerDialectOps([counting('fast', 20, true), counting('picky', 30, false)]);
    const y = exp(x);
    expect(calls).toEqual(['fast']);
    expect(Array.from(y.dataSync())).toEqual([1, Math.E, Math.exp(2)]);
    // Pinned to cpu, the higher levels are not used.
    withDialect(['cpu'], () => exp(x));
    expect(calls).toEqual(['fast']);
  });

  it('fails with the seeds message listing what was tried', () => {
    const err = (() => {
      try {
        withDialect(['picky'], () => ops.softmax(x));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DispatchError);
    expect(String(err)).toMatch(/^DispatchError: Cannot dispatch raf\.op\.softmax@cpu\(0\); tried: /);
    expect(String(err)).toContain('raf.op.cpu.softmax (level 10): not enabled');
  });

  it('caches kernels by bridge key: one build serves every shape', () => {
    ops.add(x, x);
    const before = dispatchStats().cachedKernels;
    ops.add(tensor([1, 2, 3, 4], { dtype: 'float64' }), tensor([1], { dtype: 'float64' }));
    ops.add(tensor([[1], [2]], { dtype: 'float64' }), tensor([5, 6], { dtype: 'float64' }));
    expect(dispatchStats().cachedKernels).toBe(before);
  });
});

describe('errors name the op and the argument', () => {
  it('axis out of range', () => {
    expect(() => ops.softmax(x, 2)).toThrow(new OpError('softmax', 'invalid axis = 2 on ndim = 2', 'axis'));
    expect(() => ops.softmax(x, 2)).toThrow("raf.op.softmax (argument 'axis'): invalid axis = 2 on ndim = 2");
  });
  it('wrong arg type, count, unknown keyword, missing arg', () => {
    expect(() => call('softmax', [x, 1.5])).toThrow("raf.op.softmax (argument 'axis'): expects int, got 1.5");
    expect(() => call('softmax', [x, 1, 2])).toThrow('raf.op.softmax: takes at most 2 arguments (x, axis), got 3');
    expect(() => call('softmax', [x], { axes: 1 })).toThrow(
      "raf.op.softmax: unknown argument 'axes'; arguments are x, axis",
    );
    expect(() => call('softmax', [])).toThrow("raf.op.softmax (argument 'x'): missing required argument");
  });
  it('dtype mismatch and shapes that do not broadcast', () => {
    expect(() => ops.add(x, tensor([1, 2, 3], { dtype: 'float32' }))).toThrow(
      "raf.op.add (argument 'b'): dtype mismatch: a is float64, b is float32",
    );
    expect(() => ops.add(x, tensor([1, 2], { dtype: 'float64' }))).toThrow(
      'raf.op.add: cannot broadcast a [1, 3] with b [2]',
    );
  });
  it('matmul inner dimensions and a gradient shaped unlike its value', () => {
    expect(() => ops.matmul(x, x)).toThrow('raf.op.matmul: inner dimensions differ: a [1, 3] and b [1, 3] (3 != 1)');
    expect(() => ops.softmaxDx(x, tensor([1, 2], { dtype: 'float64' }))).toThrow(
      "raf.op.softmax_dx (argument 'dy'): must match y",
    );
  });
  it('numbers stand in for scalar tensors of the call dtype', () => {
    const y = ops.add(x, 1) as Tensor;
    expect(y.dtype).toBe('float64');
    expect(Array.from(y.dataSync())).toEqual([1, 2, 3]);
  });
  it('beside bool tensors only, numbers are bool if all are 0 or 1, else int32, else float32', () => {
    const mask = tensor([true, false, true], { dtype: 'bool' });
    const ints = ops.where(mask, 1, -1) as Tensor;
    expect(ints.dtype).toBe('int32');
    expect(Array.from(ints.dataSync())).toEqual([1, -1, 1]);
    const fractions = ops.where(mask, 2, 0.5) as Tensor;
    expect(fractions.dtype).toBe('float32');
    expect(Array.from(fractions.dataSync())).toEqual([2, 0.5, 2]);
    const bools = ops.logicalAnd(mask, 1) as Tensor;
    expect(bools.dtype).toBe('bool');
    expect(Array.from(bools.dataSync())).toEqual([1, 0, 1]);
  });
});

describe('host ops', () => {
  it('shape is computed by declare, without a kernel', () => {
    const before = dispatchStats().dispatches;
    expect(
      ops.shape(
        tensor([
          [1, 2, 3],
          [4, 5, 6],
        ]),
      ),
    ).toEqual([2, 3]);
    expect(dispatchStats().dispatches).toBe(before);
  });
});
