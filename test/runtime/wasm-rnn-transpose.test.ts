// as/rnn.ts rnn_transpose_f32 (R to Rᵀ before an LSTM's or GRU's steps) against element-by-element indexing, at sizes
// that reach its 4×4 register blocks, the columns past the last whole block, the rows past it, and both. The kernels'
// own tests only ever transpose 4·H, 3·H or 2·H rows with H a multiple of 4 when the blocked path runs.

import { describe, expect, it } from 'vitest';
import { callArena } from '../../runtime/src/dialects/wasm/module.ts';
import { rnnCells } from '../../runtime/src/dialects/wasm/rnn.ts';
import { lcgValues } from '../support/reference.ts';

describe('wasm rnn_transpose_f32', () => {
  for (const [rows, cols] of [
    [4, 4],
    [8, 12],
    [1, 1],
    [3, 7],
    [5, 4],
    [4, 9],
    [13, 6],
    [512, 128],
  ] as const) {
    it(`${rows}×${cols}`, () => {
      const src = Float32Array.from(lcgValues(rows * cols, rows * 31 + cols));
      const arena = callArena();
      const ps = arena.alloc(rows * cols * 4);
      const pd = arena.alloc(rows * cols * 4);
      arena.view(Float32Array, ps, rows * cols).set(src);
      arena.view(Float32Array, pd, rows * cols).fill(Number.NaN);
      rnnCells().rnn_transpose_f32(ps, pd, rows, cols);
      const dst = arena.view(Float32Array, pd, rows * cols);
      const expected = new Float32Array(rows * cols);
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) expected[j * rows + i] = src[i * cols + j]!;
      expect(Array.from(dst)).toEqual(Array.from(expected));
    });
  }
});
