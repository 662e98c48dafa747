// as/rnn.ts rnn_pack_f32 (R to Rᵀ in 8-wide panels before an LSTM's or GRU's steps) against element-by-element
// indexing, and rnn_step_f32 reading those panels against a float64 product: sizes that reach the 4×4 register
// blocks, the columns of R past the last whole block, a last 4-wide panel (rows leaving 4 over a multiple of 8), and
// in the step, the 4-row tiles, the leftover rows' 32-column blocks and the 4-column halves after them. The kernels'
// own tests only ever pack 4·H, 3·H, 2·H or H rows with H a multiple of 4.

import { describe, expect, it } from 'vitest';
import { callArena } from '../../runtime/src/dialects/wasm/module.ts';
import { rnnCells } from '../../runtime/src/dialects/wasm/rnn.ts';
import { expectClose, lcgValues, matmulRef, transposeRef } from '../support/reference.ts';

/** Where element (k, g) of Rᵀ (row k of H, column g of G) lies in the panels, in floats. */
function panelIndex(k: number, g: number, rows: number, cols: number): number {
  const start = g - (g % 8);
  const wide = start + 8 <= rows ? 8 : 4;
  return start * cols + k * wide + (g % 8);
}

describe('wasm rnn_pack_f32', () => {
  for (const [rows, cols] of [
    [4, 4],
    [8, 12],
    [4, 1],
    [12, 7],
    [20, 6],
    [8, 9],
    [512, 128],
    [192, 64],
    [36, 13],
  ] as const) {
    it(`packs a ${rows}×${cols} R into panels of its transpose`, () => {
      const src = Float32Array.from(lcgValues(rows * cols, rows * 31 + cols));
      const arena = callArena();
      const ps = arena.alloc(rows * cols * 4);
      // One float past the panels, which the packing must leave as it is.
      const pd = arena.alloc((rows * cols + 1) * 4);
      arena.view(Float32Array, ps, rows * cols).set(src);
      arena.view(Float32Array, pd, rows * cols + 1).fill(Number.NaN);
      rnnCells().rnn_pack_f32(ps, pd, rows, cols);
      const dst = arena.view(Float32Array, pd, rows * cols + 1);
      const expected = new Float32Array(rows * cols + 1).fill(Number.NaN);
      for (let g = 0; g < rows; g++)
        for (let k = 0; k < cols; k++) expected[panelIndex(k, g, rows, cols)] = src[g * cols + k]!;
      expect(Array.from(dst)).toEqual(Array.from(expected));
    });
  }
});

describe('wasm rnn_step_f32', () => {
  for (const [B, H, G] of [
    [4, 16, 64],
    [5, 8, 36],
    [3, 12, 44],
    [1, 128, 512],
    [6, 20, 100],
  ] as const) {
    it(`h[${B}×${H}] · Rᵀ[${H}×${G}] from the panels, against float64`, () => {
      const r = lcgValues(G * H, G + H);
      const h = lcgValues(B * H, B * 7 + H);
      const arena = callArena();
      const pr = arena.alloc(G * H * 4);
      const prt = arena.alloc(G * H * 4);
      const ph = arena.alloc(B * H * 4);
      const po = arena.alloc(B * G * 4);
      arena.view(Float32Array, pr, G * H).set(r);
      arena.view(Float32Array, ph, B * H).set(h);
      rnnCells().rnn_pack_f32(pr, prt, G, H);
      rnnCells().rnn_step_f32(ph, prt, po, B, H, G);
      expectClose(Array.from(arena.view(Float32Array, po, B * G)), matmulRef(h, transposeRef(r, G, H), B, G, H));
    });
  }
});
