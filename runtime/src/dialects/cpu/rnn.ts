// Shared pieces of the CPU LSTM and GRU kernels (kernels/lstm.ts, kernels/gru.ts): the input projection of every step
// at once, and the per-batch sequence lengths. Everything accumulates in float64 scratch arrays.

import { OpError } from '../../errors.ts';
import type { Tensor } from '../../tensor.ts';

/** Each batch entry's length: sequence_lens' values (checked to lie in [1, T]), or T for all. */
export function sequenceLengths(op: string, lens: Tensor | null, T: number, B: number): Int32Array {
  const out = new Int32Array(B).fill(T);
  if (!lens) return out;
  const v = lens.dataSync();
  for (let b = 0; b < B; b++) {
    const l = v[b]!;
    if (!(l >= 1 && l <= T))
      throw new OpError(op, `sequence_lens[${b}] = ${l} is outside [1, ${T}] (the sequence length)`, 'sequence_lens');
    out[b] = l;
  }
  return out;
}

/**
 * x [T·B, I] times direction d's w [G, I] transposed, plus `bias` [G] (may be null): [T·B, G], for all steps at once,
 * since the input side of the gates does not depend on the recurrence.
 */
export function projectInputs(
  xv: ArrayLike<number>,
  rows: number,
  I: number,
  wv: ArrayLike<number>,
  d: number,
  G: number,
  bias: Float64Array | null,
): Float64Array {
  const out = new Float64Array(rows * G);
  const wOff = d * G * I;
  for (let n = 0; n < rows; n++) {
    const xo = n * I;
    const oo = n * G;
    for (let g = 0; g < G; g++) {
      const wo = wOff + g * I;
      let acc = bias ? bias[g]! : 0;
      for (let k = 0; k < I; k++) acc += xv[xo + k]! * wv[wo + k]!;
      out[oo + g] = acc;
    }
  }
  return out;
}

/** Direction d's biases [2·G] split in two and summed (w's then r's), or null without b. */
export function summedBias(bv: ArrayLike<number> | null, d: number, G: number): Float64Array | null {
  if (!bv) return null;
  const out = new Float64Array(G);
  const o = d * 2 * G;
  for (let g = 0; g < G; g++) out[g] = bv[o + g]! + bv[o + G + g]!;
  return out;
}

export const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));
