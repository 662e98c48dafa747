// The wasm GRU's float32 cells (as/rnn.ts gru_cell_f32, gru_reset_f32) against a float64 GRU written here from ONNX's
// equations: both linear_before_reset values, both directions, ragged sequence_lens, a given initial_h, and a hidden
// size of one vector plus a tail (H = 6) or several vectors (H = 8 and 12, which also take the packed per-step
// product, with a batch of 3 or of 6: H = 12 packs Rh's transpose into an 8-wide panel and a 4-wide one; and H = 64).

import { describe, it } from 'vitest';
import { ops, tensor, withDialect } from '../../runtime/src/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { lcgValues as values } from '../support/reference.ts';

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** ONNX GRU in float64: Y [T, dirs, B, H] and Y_h [dirs, B, H]; gates in the order z, r, h. */
function gruRef(
  x: number[],
  [T, B, I]: number[],
  w: number[],
  r: number[],
  b: number[],
  lens: number[],
  h0: number[],
  H: number,
  dirs: number,
  lbr: boolean,
): { y: number[]; yh: number[] } {
  const y = new Array<number>(T! * dirs * B! * H).fill(0);
  const yh = new Array<number>(dirs * B! * H).fill(0);
  const G = 3 * H;
  for (let d = 0; d < dirs; d++)
    for (let n = 0; n < B!; n++) {
      let h = h0.slice((d * B! + n) * H, (d * B! + n + 1) * H);
      const L = lens[n]!;
      for (let s = 0; s < L; s++) {
        const t = d === 1 ? L - 1 - s : s;
        // xw[g] = x_t · W[g]ᵀ + Wb[g], hr[g] = h · R[g]ᵀ + Rb[g] for the 3H gate rows.
        const xw = Array.from({ length: G }, (_, g) => {
          let v = b[d * 2 * G + g]!;
          for (let i = 0; i < I!; i++) v += x[(t * B! + n) * I! + i]! * w[(d * G + g) * I! + i]!;
          return v;
        });
        const hr = (hv: number[], g: number) => {
          let v = b[d * 2 * G + G + g]!;
          for (let k = 0; k < H; k++) v += hv[k]! * r[(d * G + g) * H + k]!;
          return v;
        };
        const z = Array.from({ length: H }, (_, j) => sigmoid(xw[j]! + hr(h, j)));
        const rg = Array.from({ length: H }, (_, j) => sigmoid(xw[H + j]! + hr(h, H + j)));
        const rh = h.map((v, j) => rg[j]! * v);
        const next = Array.from({ length: H }, (_, j) => {
          const rec = lbr ? rg[j]! * hr(h, 2 * H + j) : hr(rh, 2 * H + j);
          const c = Math.tanh(xw[2 * H + j]! + rec);
          return (1 - z[j]!) * c + z[j]! * h[j]!;
        });
        h = next;
        for (let j = 0; j < H; j++) y[((t * dirs + d) * B! + n) * H + j] = h[j]!;
      }
      for (let j = 0; j < H; j++) yh[(d * B! + n) * H + j] = h[j]!;
    }
  return { y, yh };
}

describe('wasm GRU float32 cells', () => {
  // B = 6: the per-step product's 4-row tile, then 2 rows alone; H = 12: 8 columns a tile, then 4.
  for (const [B, H] of [
    [3, 6],
    [3, 8],
    [6, 12],
    [6, 64],
  ] as const)
    for (const lbr of [false, true])
      for (const direction of ['forward', 'bidirectional'] as const)
        it(`B=${B} H=${H} linear_before_reset=${lbr} ${direction}`, () => {
          const [T, I] = [5, 7];
          const dirs = direction === 'bidirectional' ? 2 : 1;
          const G = 3 * H;
          const x = values(T * B * I, 21);
          const w = values(dirs * G * I, 22);
          const r = values(dirs * G * H, 23);
          const bias = values(dirs * 2 * G, 24);
          const h0 = values(dirs * B * H, 25);
          const lens = [5, 2, 4, 5, 1, 3].slice(0, B);
          const want = gruRef(x, [T, B, I], w, r, bias, lens, h0, H, dirs, lbr);
          const f32 = (v: number[], shape: number[]) => tensor(v, { shape, dtype: 'float32' });
          const [y, yh] = withDialect(['wasm'], () =>
            ops.gru(
              f32(x, [T, B, I]),
              f32(w, [dirs, G, I]),
              f32(r, [dirs, G, H]),
              H,
              f32(bias, [dirs, 2 * G]),
              tensor(lens, { shape: [B], dtype: 'int32' }),
              f32(h0, [dirs, B, H]),
              direction,
              lbr,
            ),
          );
          assertAllClose(y!.dataSync(), want.y, tolerance('float32'), 'Y');
          assertAllClose(yh!.dataSync(), want.yh, tolerance('float32'), 'Y_h');
        });
});
