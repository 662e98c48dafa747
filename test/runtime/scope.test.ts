// tidy(): intermediates made inside are disposed, returned tensors (and the caller's inputs) survive.

import { describe, expect, it } from 'vitest';
import { ops, tensor, tidy, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';

describe('tidy', () => {
  it('disposes intermediates, keeps what it returns and the inputs it was given', () => {
    const x = tensor([1, 2, 3]);
    let mid: Tensor | undefined;
    const y = tidy(() => {
      mid = ops.multiply(x, x);
      return ops.add(mid, x);
    });
    expect(mid!.isDisposed).toBe(true);
    expect(x.isDisposed).toBe(false);
    expect(Array.from(y.dataSync())).toEqual([2, 6, 12]);
  });
  it('keeps tensors returned in arrays and objects, and hands them to the enclosing scope', () => {
    const x = tensor([1, 2]);
    let inner: { a: Tensor; b: Tensor[] } | undefined;
    const outer = tidy(() => {
      inner = tidy(() => ({ a: ops.exp(x), b: [ops.negative(x)] }));
      expect(inner.a.isDisposed).toBe(false);
      return ops.add(inner.a, inner.b[0]!);
    });
    // Returned by the inner scope, not by the outer one: the outer scope disposes them.
    expect(inner!.a.isDisposed).toBe(true);
    expect(inner!.b[0]!.isDisposed).toBe(true);
    expect(Array.from(outer.dataSync()).map((v) => Number(v.toFixed(5)))).toEqual([
      Number((Math.E - 1).toFixed(5)),
      Number((Math.E ** 2 - 2).toFixed(5)),
    ]);
  });
  it('gives wasm intermediates their memory back: the next run reuses the same block', () => {
    const x = tensor(Array.from({ length: 4096 }, (_, i) => i / 4096));
    const step = () =>
      tidy(() => {
        const mid = withDialect(['wasm'], () => ops.exp(x));
        const ptr = (mid.storage as WasmStorage).ptr;
        const y = withDialect(['wasm'], () => ops.multiply(mid, x));
        return { y, ptr };
      });
    const first = step();
    const second = step();
    expect(second.ptr).toBe(first.ptr);
    const want = Array.from(x.dataSync()).map((v) => Math.exp(v) * v);
    const got = Array.from(second.y.dataSync());
    got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 5));
  });
  it('refuses an async function', () => {
    expect(() => tidy(() => Promise.resolve(1))).toThrow(/synchronous/);
  });
});
