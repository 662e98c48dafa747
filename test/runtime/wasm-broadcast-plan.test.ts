// The wasm elementwise kernels keep their last broadcast walk: alternating shapes through one kernel must re-plan
// each time, and every result must match a float64 reference of NumPy broadcasting.

import { describe, expect, it } from 'vitest';
import { ops, tensor, withDialect } from '../../runtime/src/index.ts';

const seq = (n: number, k: number) => Array.from({ length: n }, (_, i) => (i * 7 + k) % 11) as number[];

describe('wasm broadcast plans', () => {
  it('add and multiply alternate between broadcasts and same-shape calls, each result exact', () => {
    const cases = [
      { a: [2, 3], b: [3], ref: (x: number[], y: number[]) => x.map((v, i) => v + y[i % 3]!) },
      { a: [4, 3], b: [4, 1], ref: (x: number[], y: number[]) => x.map((v, i) => v + y[Math.floor(i / 3)]!) },
      { a: [1, 5, 1, 2], b: [1, 5, 1, 1], ref: (x: number[], y: number[]) => x.map((v, i) => v + y[i >> 1]!) },
      { a: [2, 3], b: [2, 3], ref: (x: number[], y: number[]) => x.map((v, i) => v + y[i]!) },
    ];
    for (let round = 0; round < 3; round++)
      for (const [k, c] of cases.entries()) {
        const n = c.a.reduce((p, d) => p * d, 1);
        const m = c.b.reduce((p, d) => p * d, 1);
        const x = seq(n, k + round);
        const y = seq(m, 3 * k + 1);
        const got = withDialect(['wasm'], () => ops.add(tensor(x, { shape: c.a }), tensor(y, { shape: c.b })));
        expect([...got.shape]).toEqual(c.a);
        expect(Array.from(got.dataSync())).toEqual(c.ref(x, y));
      }
  });
});
