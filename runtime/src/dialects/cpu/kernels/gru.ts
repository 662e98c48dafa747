// CPU kernel of raf.op.gru (specs/nn/gru.yaml): per direction, the input side of the gates for every step at once
// (with w's biases), then each batch entry's recurrence in one loop over its steps (gates z, r, h in ONNX's order).
// raf-op-ignores: hidden_size (the output type, checked against r by the rule, already carries it)

import type { GruKernel } from '../../../generated/bridge/gru.ts';
import { allocOut, finish } from '../support.ts';
import { projectInputs, sequenceLengths, sigmoid } from '../rnn.ts';

export const gruCpu: GruKernel = (
  { x, w, r, b, sequence_lens, initial_h },
  { direction, linear_before_reset },
  outs,
) => {
  const y = allocOut(outs[0]!);
  const yh = allocOut(outs[1]!);
  const [T, dirs, B, H] = y.shape as [number, number, number, number];
  const I = x.shape[2]!;
  const G = 3 * H;
  const [xv, wv, rv] = [x.dataSync(), w.dataSync(), r.dataSync()];
  const bv = b ? b.dataSync() : null;
  const h0 = initial_h ? initial_h.dataSync() : null;
  const [yv, yhv] = [y.dataSync(), yh.dataSync()];
  const lens = sequenceLengths('gru', sequence_lens, T, B);
  const rec = new Float64Array(G);
  const h = new Float64Array(H);
  const rh = new Float64Array(H);
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    // The input side takes w's biases (Wb); r's (Rb) join the recurrent side, where the reset gate may scale them.
    const wb = bv ? Float64Array.from({ length: G }, (_, g) => bv[d * 2 * G + g]!) : null;
    const rb = bv ? Float64Array.from({ length: G }, (_, g) => bv[d * 2 * G + G + g]!) : null;
    const xw = projectInputs(xv, T * B, I, wv, d, G, wb);
    const rOff = d * G * H;
    for (let n = 0; n < B; n++) {
      const s0 = (d * B + n) * H;
      for (let j = 0; j < H; j++) h[j] = h0 ? h0[s0 + j]! : 0;
      const L = lens[n]!;
      for (let s = 0; s < L; s++) {
        const t = reverse ? L - 1 - s : s;
        const xo = (t * B + n) * G;
        // z and r: h · R[z|r]ᵀ + Rb; with linear_before_reset also h's candidate row block, before scaling by r.
        const upto = linear_before_reset ? G : 2 * H;
        for (let g = 0; g < upto; g++) {
          const ro = rOff + g * H;
          let acc = rb ? rb[g]! : 0;
          for (let k = 0; k < H; k++) acc += rv[ro + k]! * h[k]!;
          rec[g] = acc;
        }
        for (let j = 0; j < H; j++) rh[j] = sigmoid(xw[xo + H + j]! + rec[H + j]!);
        if (!linear_before_reset) {
          // (r ⊙ h) · Rhᵀ + Rbh
          for (let j = 0; j < H; j++) {
            const ro = rOff + (2 * H + j) * H;
            let acc = rb ? rb[2 * H + j]! : 0;
            for (let k = 0; k < H; k++) acc += rv[ro + k]! * rh[k]! * h[k]!;
            rec[2 * H + j] = acc;
          }
        }
        const yo = ((t * dirs + d) * B + n) * H;
        for (let j = 0; j < H; j++) {
          const z = sigmoid(xw[xo + j]! + rec[j]!);
          const cand = Math.tanh(
            xw[xo + 2 * H + j]! + (linear_before_reset ? rh[j]! * rec[2 * H + j]! : rec[2 * H + j]!),
          );
          rec[j] = (1 - z) * cand + z * h[j]!;
        }
        for (let j = 0; j < H; j++) {
          h[j] = rec[j]!;
          yv[yo + j] = h[j]!;
        }
      }
      for (let j = 0; j < H; j++) yhv[s0 + j] = h[j]!;
    }
  }
  return [finish(y), finish(yh)];
};
