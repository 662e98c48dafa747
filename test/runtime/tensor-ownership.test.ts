// The Tensor constructor's guarantees, kept by its cheaper form: shapes are frozen and never alias a caller's array,
// sizes match the shape, and only the first tensor around a storage owns it (a second wrapper's scope leaves it be).

import { describe, expect, it } from 'vitest';
import { CpuStorage, Tensor, disposeUnkept } from '../../runtime/src/tensor.ts';
import { ops, tensor, tidy } from '../../runtime/src/index.ts';

describe('Tensor construction', () => {
  it('copies and freezes a mutable shape; the caller changing its array changes nothing', () => {
    const dims = [2, 3];
    const t = new Tensor(dims, 'float32', new CpuStorage(new Float32Array(6)));
    dims[0] = 5;
    expect(t.shape).toEqual([2, 3]);
    expect(Object.isFrozen(t.shape)).toBe(true);
    expect(t.size).toBe(6);
    expect(() => (t.shape as number[]).push(1)).toThrow(TypeError);
  });
  it('shares a frozen shape, and an op on same-shape inputs gives its output a frozen shape of the same dims', () => {
    const a = tensor([
      [1, 2],
      [3, 4],
    ]);
    const b = new Tensor(a.shape, 'float32', new CpuStorage(new Float32Array(4)));
    expect(b.shape).toBe(a.shape);
    const y = ops.add(a, a);
    expect(Object.isFrozen(y.shape)).toBe(true);
    expect(y.shape).toEqual([2, 2]);
    expect(y.size).toBe(4);
    expect(Array.from(y.dataSync())).toEqual([2, 4, 6, 8]);
  });
  it('the first tensor around a storage owns it: a scope disposes the owner, never a second wrapper made inside', () => {
    const storage = new CpuStorage(new Float32Array([1, 2]));
    const owner = new Tensor([2], 'float32', storage);
    let view: Tensor | undefined;
    disposeUnkept(
      () => {
        view = new Tensor([1, 2], 'float32', storage);
        return null;
      },
      () => [],
    );
    expect(view!.isDisposed).toBe(false);
    expect(owner.isDisposed).toBe(false);
    let made: Tensor | undefined;
    disposeUnkept(
      () => {
        made = new Tensor([2], 'float32', new CpuStorage(new Float32Array(2)));
        return null;
      },
      () => [],
    );
    expect(made!.isDisposed).toBe(true);
  });
  it('tidy keeps an op result that is one of its inputs and disposes a fresh one', () => {
    const x = tensor([1, 2, 3]);
    let fresh: Tensor | undefined;
    const kept = tidy(() => {
      fresh = ops.negative(x);
      return ops.add(fresh, x);
    });
    expect(fresh!.isDisposed).toBe(true);
    expect(x.isDisposed).toBe(false);
    expect(Array.from(kept.dataSync())).toEqual([0, 0, 0]);
  });
});
