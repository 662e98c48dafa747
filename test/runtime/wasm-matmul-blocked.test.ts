// The wasm dialect's blocked float32 product (as/matmul.ts: packed panels, A splat, 4×8 register tile) against a float64
// reference: shapes that cross every cache block (KC = 256, MC = 64, NC = 512) and end in partial tiles, with A or B
// read transposed through strides (matmul_tn, matmul_nt) as the gradients of matmul read them; and products of under
// four rows, which read B in place without packing (row by row in blocks of columns, two rows of c at a time); and
// products of at most 16 columns (two panels of B), whose tiles splat A from where it lies instead of packing it; and
// products of at most 64 columns with A's and B's rows contiguous, which dot A's rows with B's columns transposed to
// rows (as/matmul.ts fewColumns).

import { describe, expect, it } from 'vitest';
import { ops, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { lcgValues as values, matmulRef as product } from '../support/reference.ts';

const transpose = (x: readonly number[], rows: number, cols: number) =>
  Array.from({ length: rows * cols }, (_, t) => x[(t % rows) * cols + Math.floor(t / rows)]!);

/**
 * Each element within the standard bound for a float32 sum of k products, k·2⁻²⁴·Σp |a[i][p]·b[p][j]| (γk with unit
 * roundoff 2⁻²⁴; lcgValues are exact in float32, so the float64 reference sees the very inputs the kernel does).
 */
function expectWithinSumBound(
  got: Float32Array | Float64Array,
  a: number[],
  b: number[],
  m: number,
  n: number,
  k: number,
) {
  const want = product(a, b, m, n, k);
  const absSum = product(
    a.map((v) => Math.abs(v)),
    b.map((v) => Math.abs(v)),
    m,
    n,
    k,
  );
  expect(got.length).toBe(m * n);
  let worst = 0;
  for (let i = 0; i < m * n; i++) {
    const bound = k * 2 ** -24 * absSum[i]! + 1e-30;
    worst = Math.max(worst, Math.abs(got[i]! - want[i]!) / bound);
  }
  expect(worst).toBeLessThanOrEqual(1);
}

const f32 = (data: number[], shape: number[]) => tensor(data, { shape, dtype: 'float32' });

describe('wasm blocked float32 product', () => {
  for (const [m, n, k] of [
    [70, 521, 300], // past MC, NC and KC, a 2-row and a 1-column edge tile
    [5, 9, 17], // one full tile and edges in both directions
    [64, 16, 1], // k = 1
    [130, 10, 784], // the MLP bench's shapes: n = 10 is one full and one 2-wide panel, k spans four KC blocks
    [9, 3, 300], // A in place: two whole tiles and a 1-row edge, one 3-wide panel, k over two blocks (accumulated)
    [7, 16, 40], // A in place: a whole tile and a 3-row edge, two whole panels
    [257, 8, 512], // A in place: a spectrogram's Conv as a product (257 filters, 8 frames), k over two blocks
    [1, 39, 131], // one row (a dense layer on one sample): B read in place, four columns at a time and a 3-column tail
    [3, 8, 6], // three rows, k under one vector plus a tail
    [2, 96, 50], // two rows of B read in place, three whole blocks of 32 columns
    [1, 70, 5], // one row: two blocks of 32 columns, then six
    [2, 1031, 13], // two rows of B read in place: two column blocks (1024, then 7: a vector and 3), k = 3·4 + 1
    [3, 1029, 10], // three rows: a pair and a single, two column blocks (1024 and 5), k = 2·4 + 2
  ] as const) {
    const a = values(m * k, 11);
    const b = values(k * n, 12);
    const run = (f: () => Tensor) => withDialect(['wasm'], f).dataSync() as Float32Array;
    it(`matmul ${m}×${k}·${k}×${n}`, () => {
      expectWithinSumBound(
        run(() => ops.matmul(f32(a, [m, k]), f32(b, [k, n]))),
        a,
        b,
        m,
        n,
        k,
      );
    });
    it(`matmul_nt ${m}×${k}·(${n}×${k})ᵀ reads B through strides`, () => {
      expectWithinSumBound(
        run(() => ops.matmulNt(f32(a, [m, k]), f32(transpose(b, k, n), [n, k]))),
        a,
        b,
        m,
        n,
        k,
      );
    });
    it(`matmul_tn (${k}×${m})ᵀ·${k}×${n} reads A through strides`, () => {
      expectWithinSumBound(
        run(() => ops.matmulTn(f32(transpose(a, m, k), [k, m]), f32(b, [k, n]))),
        a,
        b,
        m,
        n,
        k,
      );
    });
  }
});

describe('wasm float32 product of few columns (dot products against B transposed)', () => {
  for (const [m, n, k, what] of [
    [5, 1, 33, 'one column (transposed one float at a time), an odd last row'],
    [6, 3, 70, 'three columns, no whole block of four'],
    [9, 7, 64, 'a block of four columns and three more, an odd last row'],
    [8, 36, 129, 'nine blocks of four columns, k one past a multiple of 4'],
    [6, 64, 45, 'the most columns it takes'],
    [13, 20, 1024, 'rows of 4 KiB, spaced an odd number of lines apart'],
    [4, 65, 50, 'one column too many: the blocked product'],
  ] as const) {
    it(`matmul ${m}×${k}·${k}×${n}: ${what}`, () => {
      const a = values(m * k, 13);
      const b = values(k * n, 14);
      const got = withDialect(['wasm'], () => ops.matmul(f32(a, [m, k]), f32(b, [k, n]))).dataSync() as Float32Array;
      expectWithinSumBound(got, a, b, m, n, k);
    });
  }
});
