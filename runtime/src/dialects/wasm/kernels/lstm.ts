// Wasm kernel of raf.op.lstm (specs/nn/lstm.yaml): per direction, x · Wᵀ for every step at once and h · Rᵀ once per
// step for the whole batch on the SIMD matrix product; the gates (i, o, f, c) and the state update are a loop over
// views of wasm memory. Outputs stay resident in wasm memory.
// raf-op-ignores: hidden_size (the output type, checked against r by the rule, already carries it)

import type { LstmKernel } from '../../../generated/bridge/lstm.ts';
import { sigmoid, summedBias } from '../../cpu/rnn.ts';
import { RnnArena, rnnCells, sequenceLengths } from '../rnn.ts';
import { outBlock, widthOf } from '../support.ts';

export const lstmWasm: LstmKernel = ({ x, w, r, b, sequence_lens, initial_h, initial_c }, { direction }, outs) => {
  const mem = new RnnArena(widthOf(outs[0]!.dtype)!);
  const [T, dirs, B, H] = outs[0]!.shape as [number, number, number, number];
  const I = x.shape[2]!;
  const G = 4 * H;
  const lens = sequenceLengths('lstm', sequence_lens, T, B);
  const [px, pw, pr] = [mem.input(x), mem.input(w), mem.input(r)];
  const [pxw, pg, ph] = [mem.alloc(T * B * G), mem.alloc(B * G), mem.alloc(B * H)];
  const [y, yh, yc] = outs.map((o) => outBlock(mem.arena, mem.width, o)) as [
    ReturnType<typeof outBlock>,
    ReturnType<typeof outBlock>,
    ReturnType<typeof outBlock>,
  ];
  const f32 = mem.width === 'f32';
  // f32: the cell state and the summed biases live in wasm memory too, and each step's cell update is one SIMD call
  // per batch entry (as/rnn.ts); f64 keeps the loop below.
  const [pc, pb] = f32 ? [mem.alloc(B * H), mem.alloc(G)] : [0, 0];
  // Over several steps, Rᵀ [H, 4H] packed in panels once per direction and each step's h · Rᵀ as SIMD (as/rnn.ts).
  const prt = f32 && T > 1 ? mem.alloc(G * H) : 0;
  const bv = b ? b.dataSync() : null;
  const h0 = initial_h ? initial_h.dataSync() : null;
  const c0 = initial_c ? initial_c.dataSync() : null;
  const [xw, gates, h] = [mem.view(pxw, T * B * G), mem.view(pg, B * G), mem.view(ph, B * H)];
  const [yv, yhv, ycv] = [
    mem.view(y.ptr, T * dirs * B * H),
    mem.view(yh.ptr, dirs * B * H),
    mem.view(yc.ptr, dirs * B * H),
  ];
  yv.fill(0);
  const c = f32 ? mem.view(pc, B * H) : new Float64Array(B * H);
  const bw = f32 ? mem.view(pb, G) : null;
  const cell = rnnCells();
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    const bias = summedBias(bv, d, G);
    if (bw) bw.set(bias ?? new Float64Array(G));
    mem.productNt(px, pw + d * G * I * mem.bytes, pxw, T * B, G, I);
    const s0 = d * B * H;
    for (let k = 0; k < B * H; k++) {
      h[k] = h0 ? h0[s0 + k]! : 0;
      c[k] = c0 ? c0[s0 + k]! : 0;
    }
    if (prt) cell.rnn_pack_f32(pr + d * G * H * mem.bytes, prt, G, H);
    for (let s = 0; s < T; s++) {
      if (prt) cell.rnn_step_f32(ph, prt, pg, B, H, G);
      else mem.productNt(ph, pr + d * G * H * mem.bytes, pg, B, G, H);
      for (let n = 0; n < B; n++) {
        const L = lens[n]!;
        if (s >= L) continue;
        const t = reverse ? L - 1 - s : s;
        const [go, xo, ho, yo] = [n * G, (t * B + n) * G, n * H, ((t * dirs + d) * B + n) * H];
        if (f32) {
          const e = mem.bytes;
          cell.lstm_cell_f32(pg + go * e, pxw + xo * e, pb, pc + ho * e, ph + ho * e, y.ptr + yo * e, H);
          continue;
        }
        for (let j = 0; j < H; j++) {
          // Gate g of unit j: the recurrent product, the input side and the summed biases.
          let ai = gates[go + j]! + xw[xo + j]!;
          let ao = gates[go + H + j]! + xw[xo + H + j]!;
          let af = gates[go + 2 * H + j]! + xw[xo + 2 * H + j]!;
          let ac = gates[go + 3 * H + j]! + xw[xo + 3 * H + j]!;
          if (bias) {
            ai += bias[j]!;
            ao += bias[H + j]!;
            af += bias[2 * H + j]!;
            ac += bias[3 * H + j]!;
          }
          const cj = sigmoid(af) * c[ho + j]! + sigmoid(ai) * Math.tanh(ac);
          c[ho + j] = cj;
          const hj = sigmoid(ao) * Math.tanh(cj);
          h[ho + j] = hj;
          yv[yo + j] = hj;
        }
      }
    }
    for (let k = 0; k < B * H; k++) {
      yhv[s0 + k] = h[k]!;
      ycv[s0 + k] = c[k]!;
    }
  }
  return [y.tensor(), yh.tensor(), yc.tensor()];
};
