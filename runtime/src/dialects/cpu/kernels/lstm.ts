// CPU kernel of raf.op.lstm (specs/nn/lstm.yaml): per direction, the input side of the gates for every step at once,
// then each batch entry's recurrence in one loop over its steps (gates i, o, f, c in ONNX's order).
// raf-op-ignores: hidden_size (the output type, checked against r by the rule, already carries it)

import type { LstmKernel } from '../../../generated/bridge/lstm.ts';
import { allocOut, finish } from '../support.ts';
import { projectInputs, sequenceLengths, sigmoid, summedBias } from '../rnn.ts';

export const lstmCpu: LstmKernel = ({ x, w, r, b, sequence_lens, initial_h, initial_c }, { direction }, outs) => {
  const [y, yh, yc] = outs.map(allocOut) as [
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
  ];
  const [T, dirs, B, H] = y.shape as [number, number, number, number];
  const I = x.shape[2]!;
  const G = 4 * H;
  const [xv, wv, rv] = [x.dataSync(), w.dataSync(), r.dataSync()];
  const bv = b ? b.dataSync() : null;
  const h0 = initial_h ? initial_h.dataSync() : null;
  const c0 = initial_c ? initial_c.dataSync() : null;
  const [yv, yhv, ycv] = [y.dataSync(), yh.dataSync(), yc.dataSync()];
  const lens = sequenceLengths('lstm', sequence_lens, T, B);
  const gates = new Float64Array(G);
  const h = new Float64Array(H);
  const c = new Float64Array(H);
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    const xw = projectInputs(xv, T * B, I, wv, d, G, summedBias(bv, d, G));
    const rOff = d * G * H;
    for (let n = 0; n < B; n++) {
      const s0 = (d * B + n) * H;
      for (let j = 0; j < H; j++) {
        h[j] = h0 ? h0[s0 + j]! : 0;
        c[j] = c0 ? c0[s0 + j]! : 0;
      }
      const L = lens[n]!;
      for (let s = 0; s < L; s++) {
        const t = reverse ? L - 1 - s : s;
        const xo = (t * B + n) * G;
        for (let g = 0; g < G; g++) {
          const ro = rOff + g * H;
          let acc = xw[xo + g]!;
          for (let k = 0; k < H; k++) acc += rv[ro + k]! * h[k]!;
          gates[g] = acc;
        }
        const yo = ((t * dirs + d) * B + n) * H;
        for (let j = 0; j < H; j++) {
          const cj = sigmoid(gates[2 * H + j]!) * c[j]! + sigmoid(gates[j]!) * Math.tanh(gates[3 * H + j]!);
          c[j] = cj;
          h[j] = sigmoid(gates[H + j]!) * Math.tanh(cj);
          yv[yo + j] = h[j]!;
        }
      }
      for (let j = 0; j < H; j++) {
        yhv[s0 + j] = h[j]!;
        ycv[s0 + j] = c[j]!;
      }
    }
  }
  return [finish(y), finish(yh), finish(yc)];
};
