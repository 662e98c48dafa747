// CPU kernel of raf.op.rnn (specs/nn/rnn.yaml): per direction and batch entry, h = f(clip(W x_t + R h + Wb + Rb)) in
// float64 over the entry's valid steps (all T without sequence_lens; backwards for the reverse direction).

import type { RnnKernel } from '../../../generated/bridge/rnn.ts';
import { OpError } from '../../../errors.ts';
import { allocOut, finish } from '../support.ts';

const ACTIVATIONS: Readonly<Record<string, (v: number) => number>> = {
  Tanh: Math.tanh,
  Relu: (v) => Math.max(0, v),
  Sigmoid: (v) => 1 / (1 + Math.exp(-v)),
};

export const rnnCpu: RnnKernel = ({ x, w, r, b, sequence_lens, initial_h }, attrs, outs) => {
  const { hidden_size: H, direction, activation, clip } = attrs;
  const f = ACTIVATIONS[activation];
  if (!f) throw new OpError('rnn', `must be Tanh, Relu or Sigmoid, got '${activation}'`, 'activation');
  const [T, B, I] = x.shape as [number, number, number];
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const y = allocOut(outs[0]!);
  const yh = allocOut(outs[1]!);
  const [xv, wv, rv] = [x.dataSync(), w.dataSync(), r.dataSync()];
  const bv = b?.dataSync();
  const hv0 = initial_h?.dataSync();
  const lens = sequence_lens?.dataSync();
  const yv = y.dataSync();
  const yhv = yh.dataSync();
  const h = new Float64Array(H);
  const next = new Float64Array(H);
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    for (let n = 0; n < B; n++) {
      const len = lens ? Number(lens[n]) : T;
      if (!(len >= 0 && len <= T))
        throw new OpError('rnn', `sequence length ${len} of batch entry ${n} is outside [0, ${T}]`, 'sequence_lens');
      for (let j = 0; j < H; j++) h[j] = hv0 ? hv0[(d * B + n) * H + j]! : 0;
      for (let s = 0; s < len; s++) {
        const t = reverse ? len - 1 - s : s;
        for (let j = 0; j < H; j++) {
          let v = bv ? bv[d * 2 * H + j]! + bv[d * 2 * H + H + j]! : 0;
          for (let i = 0; i < I; i++) v += wv[(d * H + j) * I + i]! * xv[(t * B + n) * I + i]!;
          for (let k = 0; k < H; k++) v += rv[(d * H + j) * H + k]! * h[k]!;
          if (clip !== null) v = Math.min(clip, Math.max(-clip, v));
          next[j] = f(v);
        }
        h.set(next);
        for (let j = 0; j < H; j++) yv[((t * dirs + d) * B + n) * H + j] = h[j]!;
      }
      for (let j = 0; j < H; j++) yhv[(d * B + n) * H + j] = h[j]!;
    }
  }
  return [finish(y), finish(yh)];
};
