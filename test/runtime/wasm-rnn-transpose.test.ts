// as/rnn.ts rnn_transpose_f32 (R to Rᵀ before an LSTM's or GRU's steps) against element-by-element indexing, at sizes
// that reach its 4×4 register blocks, the columns past the last whole block, the rows past it, and both; into rows of
// dst `ld` floats apart, both tight (ld = rows) and padded as the kernels lay Rᵀ out (transposedRow), with the padding
// left untouched. The kernels' own tests only ever transpose 4·H, 3·H or 2·H rows with H a multiple of 4 when the
// blocked path runs.

import { describe, expect, it } from 'vitest';
import { callArena } from '../../runtime/src/dialects/wasm/module.ts';
import { rnnCells, transposedRow } from '../../runtime/src/dialects/wasm/rnn.ts';
import { lcgValues } from '../support/reference.ts';

describe('wasm rnn_transpose_f32', () => {
  for (const [rows, cols, ld] of [
    [4, 4, 4],
    [8, 12, 8],
    [1, 1, 1],
    [3, 7, 3],
    [5, 4, 5],
    [4, 9, 4],
    [13, 6, 13],
    [512, 128, 512],
    [512, 128, transposedRow(512)], // an LSTM's R at H = 128: rows 520 floats apart
    [64, 16, transposedRow(64)], // a GRU's Rh at H = 64
    [13, 6, 17], // padded, with edges in both directions
  ] as const) {
    it(`${rows}×${cols}, rows of dst ${ld} apart`, () => {
      const src = Float32Array.from(lcgValues(rows * cols, rows * 31 + cols));
      const arena = callArena();
      const ps = arena.alloc(rows * cols * 4);
      const pd = arena.alloc(ld * cols * 4);
      arena.view(Float32Array, ps, rows * cols).set(src);
      arena.view(Float32Array, pd, ld * cols).fill(Number.NaN);
      rnnCells().rnn_transpose_f32(ps, pd, rows, cols, ld);
      const dst = arena.view(Float32Array, pd, ld * cols);
      const expected = new Float32Array(ld * cols).fill(Number.NaN);
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) expected[j * ld + i] = src[i * cols + j]!;
      expect(Array.from(dst)).toEqual(Array.from(expected));
    });
  }

  it('pads rows of Rᵀ by 8 floats exactly when their byte stride is a multiple of 256', () => {
    expect([512, 384, 256, 128, 64, 60, 100, 520].map(transposedRow)).toEqual([520, 392, 264, 136, 72, 60, 100, 520]);
  });
});
