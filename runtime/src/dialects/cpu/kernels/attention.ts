// CPU kernel of raf.op.attention (specs/nn/attention.yaml): per (batch, query head, query) row, the scores against
// every key in float64, soft-capped, masked (a float32 score rounded to float32 once masked, as the spelled-out graph
// and onnxruntime round it, so a row masked by the lowest finite float averages the values as theirs does), softmaxed
// (a fully masked row is masked_row, zeros by default), then the weighted sum of values. One row's scores at a time:
// never a [q_seq, kv_seq] matrix per head.

import type { AttentionKernel } from '../../../generated/bridge/attention.ts';
import { OpError } from '../../../errors.ts';
import { allocOut, finish } from '../support.ts';

export const attentionCpu: AttentionKernel = (
  { q, k, v, attn_mask, nonpad_kv_seqlen },
  { scale, is_causal, softcap, past_len, masked_row },
  out,
) => {
  const y = allocOut(out);
  const [qs, ks, vs, ys] = [q.dataSync(), k.dataSync(), v.dataSync(), y.dataSync()];
  const [B, Hq, Sq, D] = q.shape as [number, number, number, number];
  const [, Hkv, Skv] = k.shape as [number, number, number];
  const Dv = v.shape[3]!;
  const reps = Hq / Hkv;
  const s = scale ?? 1 / Math.sqrt(D);
  // The mask's strides over (batch, q_heads, q_seq, key), 0 where it broadcasts; keys past its last axis are masked.
  const mask = attn_mask ? attn_mask.dataSync() : null;
  const boolMask = attn_mask?.dtype === 'bool';
  const mshape = attn_mask ? [1, 1, 1, 1].slice(attn_mask.shape.length).concat(attn_mask.shape) : [1, 1, 1, 1];
  const mlen = mshape[3]!;
  const mstride = [0, 0, 0, 1];
  for (let i = 3, acc = 1; i >= 0; i--) {
    mstride[i] = mshape[i] === 1 && i < 3 ? 0 : acc;
    acc *= mshape[i]!;
  }
  const lens = nonpad_kv_seqlen ? nonpad_kv_seqlen.dataSync() : null;
  const f32 = q.dtype === 'float32';
  const score = new Float64Array(Skv);
  const bias = new Float64Array(Skv);
  for (let b = 0; b < B; b++) {
    const limit = lens ? lens[b]! : Skv;
    if (lens && (limit < 0 || limit > Skv))
      throw new OpError('attention', `${limit} keys for batch ${b} is outside 0..${Skv}`, 'nonpad_kv_seqlen');
    const offset = lens ? limit - Sq : past_len;
    for (let h = 0; h < Hq; h++) {
      const kh = Math.floor(h / reps);
      const kBase = (b * Hkv + kh) * Skv;
      for (let i = 0; i < Sq; i++) {
        const qBase = ((b * Hq + h) * Sq + i) * D;
        const mBase = b * mstride[0]! + h * mstride[1]! + i * mstride[2]!;
        let maxBias = -Infinity;
        for (let j = 0; j < Skv; j++) {
          let bj = 0;
          if (mask) {
            if (j >= mlen) bj = -Infinity;
            else {
              const m = mask[mBase + j]!;
              bj = boolMask ? (m ? 0 : -Infinity) : m;
            }
          }
          if (is_causal && j > i + offset) bj = -Infinity;
          if (j >= limit) bj = -Infinity;
          bias[j] = bj;
          if (bj > maxBias || Number.isNaN(bj)) maxBias = Number.isNaN(bj) ? maxBias : bj;
        }
        const yBase = ((b * Hq + h) * Sq + i) * Dv;
        if (maxBias === -Infinity) {
          for (let e = 0; e < Dv; e++) ys[yBase + e] = masked_row;
          continue;
        }
        let max = -Infinity;
        for (let j = 0; j < Skv; j++) {
          let dot = 0;
          const kRow = (kBase + j) * D;
          for (let e = 0; e < D; e++) dot += qs[qBase + e]! * ks[kRow + e]!;
          let x = dot * s;
          if (softcap > 0) x = softcap * Math.tanh(x / softcap);
          x = f32 ? Math.fround(x + bias[j]!) : x + bias[j]!;
          score[j] = x;
          if (x > max) max = x;
        }
        let sum = 0;
        const shift = max === -Infinity ? 0 : max;
        for (let j = 0; j < Skv; j++) {
          const p = Math.exp(score[j]! - shift);
          score[j] = p;
          sum += p;
        }
        if (sum === 0) sum = 1;
        for (let e = 0; e < Dv; e++) ys[yBase + e] = 0;
        for (let j = 0; j < Skv; j++) {
          const p = score[j]! / sum;
          if (p === 0) continue;
          const vRow = (kBase + j) * Dv;
          for (let e = 0; e < Dv; e++) ys[yBase + e] += p * vs[vRow + e]!;
        }
      }
    }
  }
  return finish(y);
};
