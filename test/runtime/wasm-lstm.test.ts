// The wasm LSTM in float32 (kernels/lstm.ts: the input product, the per-step product h · Rᵀ in as/rnn.ts rnn_step_f32
// and the lstm_cell_f32 cells) against a float64 LSTM written here from ONNX's equations. Batches of 1, 4 and 6 reach
// the per-step product's single rows, its 4-row tile, and both; hidden sizes 4, 5 and 8 give 4·H = 16, 20 (two
// 8-wide panels of Rᵀ and a 4-wide one, rnn_pack_f32) and 32 columns, and H = 16 gives 64 (two of the single rows'
// 32-column blocks). Ragged sequence_lens and both directions.

import { describe, it } from 'vitest';
import { ops, tensor, withDialect } from '../../runtime/src/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { lcgValues as values } from '../support/reference.ts';

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** ONNX LSTM in float64, gates in the order i, o, f, c: Y [T, dirs, B, H], Y_h and Y_c [dirs, B, H]. */
function lstmRef(
  x: number[],
  [T, B, I]: [number, number, number],
  w: number[],
  r: number[],
  b: number[],
  lens: number[],
  h0: number[],
  c0: number[],
  H: number,
  dirs: number,
): { y: number[]; yh: number[]; yc: number[] } {
  const G = 4 * H;
  const y = new Array<number>(T * dirs * B * H).fill(0);
  const yh = new Array<number>(dirs * B * H).fill(0);
  const yc = new Array<number>(dirs * B * H).fill(0);
  for (let d = 0; d < dirs; d++)
    for (let n = 0; n < B; n++) {
      let h = h0.slice((d * B + n) * H, (d * B + n + 1) * H);
      let c = c0.slice((d * B + n) * H, (d * B + n + 1) * H);
      const L = lens[n]!;
      for (let s = 0; s < L; s++) {
        const t = d === 1 ? L - 1 - s : s;
        const gate = (g: number) => {
          let v = b[d * 2 * G + g]! + b[d * 2 * G + G + g]!;
          for (let i = 0; i < I; i++) v += x[(t * B + n) * I + i]! * w[(d * G + g) * I + i]!;
          for (let k = 0; k < H; k++) v += h[k]! * r[(d * G + g) * H + k]!;
          return v;
        };
        const ig = Array.from({ length: H }, (_, j) => sigmoid(gate(j)));
        const og = Array.from({ length: H }, (_, j) => sigmoid(gate(H + j)));
        const fg = Array.from({ length: H }, (_, j) => sigmoid(gate(2 * H + j)));
        const cg = Array.from({ length: H }, (_, j) => Math.tanh(gate(3 * H + j)));
        c = c.map((cj, j) => fg[j]! * cj + ig[j]! * cg[j]!);
        h = c.map((cj, j) => og[j]! * Math.tanh(cj));
        for (let j = 0; j < H; j++) y[((t * dirs + d) * B + n) * H + j] = h[j]!;
      }
      for (let j = 0; j < H; j++) {
        yh[(d * B + n) * H + j] = h[j]!;
        yc[(d * B + n) * H + j] = c[j]!;
      }
    }
  return { y, yh, yc };
}

describe('wasm LSTM float32', () => {
  for (const [B, H] of [
    [1, 8],
    [4, 4],
    [4, 5],
    [6, 8],
    [6, 5],
    [6, 16],
  ] as const)
    for (const direction of ['forward', 'bidirectional'] as const)
      it(`B=${B} H=${H} ${direction}`, () => {
        const [T, I] = [6, 7];
        const dirs = direction === 'bidirectional' ? 2 : 1;
        const G = 4 * H;
        const x = values(T * B * I, 31);
        const w = values(dirs * G * I, 32);
        const r = values(dirs * G * H, 33);
        const bias = values(dirs * 2 * G, 34);
        const h0 = values(dirs * B * H, 35);
        const c0 = values(dirs * B * H, 36);
        const lens = [6, 3, 5, 6, 1, 4].slice(0, B);
        const want = lstmRef(x, [T, B, I], w, r, bias, lens, h0, c0, H, dirs);
        const f32 = (v: number[], shape: number[]) => tensor(v, { shape, dtype: 'float32' });
        const [y, yh, yc] = withDialect(['wasm'], () =>
          ops.lstm(
            f32(x, [T, B, I]),
            f32(w, [dirs, G, I]),
            f32(r, [dirs, G, H]),
            H,
            f32(bias, [dirs, 2 * G]),
            tensor(lens, { shape: [B], dtype: 'int32' }),
            f32(h0, [dirs, B, H]),
            f32(c0, [dirs, B, H]),
            direction,
          ),
        );
        assertAllClose(y!.dataSync(), want.y, tolerance('float32'), 'Y');
        assertAllClose(yh!.dataSync(), want.yh, tolerance('float32'), 'Y_h');
        assertAllClose(yc!.dataSync(), want.yc, tolerance('float32'), 'Y_c');
      });
});
