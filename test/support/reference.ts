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

/** The transpose of b, given as [rows, cols] row-major: [cols, rows] row-major. */
export function transposeRef(b: readonly number[], rows: number, cols: number): number[] {
  return Array.from({ length: rows * cols }, (_, t) => b[(t % rows) * cols + Math.floor(t / rows)]!);
}

/** Element by element within tol · (1 + |want|); every reference value must be finite (a NaN compares nothing). */
export function expectClose(got: readonly number[], want: readonly number[], tol = 1e-5): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    expect(Number.isFinite(want[i]!)).toBe(true);
    expect(Math.abs(got[i]! - want[i]!)).toBeLessThanOrEqual(tol * (1 + Math.abs(want[i]!)));
  }
}

/**
 * NCHW convolution (cross-correlation) with groups, strides, pads [top, left, bottom, right] and dilations, in float64:
 * every tap summed in place, no im2col.
 */
export function conv2dRef(
  x: readonly number[],
  [n, c, h, wd]: readonly number[],
  w: readonly number[],
  [o, cg, kh, kw]: readonly number[],
  [sh, sw]: readonly number[],
  [pt, pl, pb, pr]: readonly number[],
  groups: number,
  [dh, dw]: readonly number[] = [1, 1],
): { data: number[]; shape: number[] } {
  const oh = Math.floor((h! + pt! + pb! - dh! * (kh! - 1) - 1) / sh!) + 1;
  const ow = Math.floor((wd! + pl! + pr! - dw! * (kw! - 1) - 1) / sw!) + 1;
  const og = o! / groups;
  const data: number[] = [];
  for (let i = 0; i < n!; i++)
    for (let oc = 0; oc < o!; oc++)
      for (let oy = 0; oy < oh; oy++)
        for (let ox = 0; ox < ow; ox++) {
          let s = 0;
          const g = Math.floor(oc / og);
          for (let ci = 0; ci < cg!; ci++)
            for (let ky = 0; ky < kh!; ky++)
              for (let kx = 0; kx < kw!; kx++) {
                const iy = oy * sh! - pt! + ky * dh!;
                const ix = ox * sw! - pl! + kx * dw!;
                if (iy < 0 || iy >= h! || ix < 0 || ix >= wd!) continue;
                s += w[((oc * cg! + ci) * kh! + ky) * kw! + kx]! * x[((i * c! + g * cg! + ci) * h! + iy) * wd! + ix]!;
              }
          data.push(s);
        }
  return { data, shape: [n!, o!, oh, ow] };
}
