// Small float64 references and input makers that several runtime tests share.

import { expect } from 'vitest';

/** n values in [-1, 1) from a linear congruential generator: the same seed gives the same values in every test. */
export function lcgValues(n: number, seed: number): number[] {
  let a = seed >>> 0;
  return Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return (a >>> 8) / 2 ** 23 - 1;
  });
}

/** c[i][j] = Σp a[i][p]·b[p][j] (a given as [m, k], b as [k, n]), in float64. */
export function matmulRef(a: readonly number[], b: readonly number[], m: number, n: number, k: number): number[] {
  const c: number[] = [];
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i * k + p]! * b[p * n + j]!;
      c.push(s);
    }
  return c;
}

/** Element by element within tol · (1 + |want|); every reference value must be finite (a NaN compares nothing). */
export function expectClose(got: readonly number[], want: readonly number[], tol = 1e-5): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    expect(Number.isFinite(want[i]!)).toBe(true);
    expect(Math.abs(got[i]! - want[i]!)).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i]!)));
  }
}
