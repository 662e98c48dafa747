// Wasm kernel of raf.op.attention (specs/nn/attention.yaml), float32: per (batch, query head), one blocked pass over
// blocks of BLOCK query rows. For each block, the block's scores against every key (the SIMD matrix product, q·kᵀ read
// through strides), scaled and masked in place (each float32 step rounded as the spelled-out graph rounds it), the
// SIMD softmax of each row, and the product with v written straight into the output rows. Only a [BLOCK, kv_seq]
// score block exists at a time, never a [q_seq, kv_seq] matrix. A row whose keys are all masked gets masked_row.
// softcap, nonpad_kv_seqlen and other dtypes go to the CPU kernel.

import type { AttentionKernel } from '../../../generated/bridge/attention.ts';
import { attentionCpu } from '../../cpu/kernels/attention.ts';
import { callArena, wasm } from '../module.ts';
import { inPtr, outBlock } from '../support.ts';

/** Query rows per block: the score block stays small (BLOCK · kv_seq floats) while the products stay matrix-shaped. */
const BLOCK = 32;

export const attentionWasm: AttentionKernel = (inputs, attrs, out) => {
  const { q, k, v, attn_mask, nonpad_kv_seqlen } = inputs;
  const { scale, is_causal, softcap, past_len, masked_row } = attrs;
  if (out.dtype !== 'float32' || q.dtype !== 'float32' || softcap > 0 || nonpad_kv_seqlen)
    return attentionCpu(inputs, attrs, out);
  const [B, Hq, Sq, D] = q.shape as [number, number, number, number];
  const [, Hkv, Skv] = k.shape as [number, number, number];
  const Dv = v.shape[3]!;
  const reps = Hq / Hkv;
  const s = Math.fround(scale ?? 1 / Math.sqrt(D));
  // The mask's strides over (batch, q_heads, q_seq), 0 where it broadcasts; keys past its last axis are masked.
  const mask = attn_mask ? (attn_mask.dataSync() as ArrayLike<number>) : null;
  const boolMask = attn_mask?.dtype === 'bool';
  const mshape = attn_mask ? [1, 1, 1, 1].slice(attn_mask.shape.length).concat(attn_mask.shape) : [1, 1, 1, 1];
  const mlen = mshape[3]!;
  const mstride = [0, 0, 0];
  for (let i = 2, acc = mlen; i >= 0; i--) {
    mstride[i] = mshape[i] === 1 ? 0 : acc;
    acc *= mshape[i]!;
  }
  const w = wasm();
  const arena = callArena();
  const [pq, pk, pv] = [inPtr(arena, 'f32', q), inPtr(arena, 'f32', k), inPtr(arena, 'f32', v)];
  const y = outBlock(arena, 'f32', out);
  const block = Math.min(BLOCK, Sq);
  const ps = arena.alloc(block * Skv * 4);
  const scratch = arena.alloc(w.matmul_scratch_bytes());
  // Nothing allocates from here on, so views of the memory stay valid.
  const scores = arena.view(Float32Array, ps, block * Skv);
  const ys = arena.view(Float32Array, y.ptr, B * Hq * Sq * Dv);
  const empty: number[] = [];
  for (let b = 0; b < B; b++)
    for (let h = 0; h < Hq; h++) {
      const kv = (b * Hkv + Math.floor(h / reps)) * Skv;
      for (let i0 = 0; i0 < Sq; i0 += block) {
        const rows = Math.min(block, Sq - i0);
        const row0 = (b * Hq + h) * Sq + i0;
        w.matmul_f32(pq + row0 * D * 4, D, 1, pk + kv * D * 4, 1, D, ps, rows, Skv, D, scratch);
        empty.length = 0;
        for (let r = 0; r < rows; r++) {
          const i = i0 + r;
          const base = r * Skv;
          const mBase = b * mstride[0]! + h * mstride[1]! + i * mstride[2]!;
          // Keys from `end` on are masked: past the causal limit, or past a short mask's last axis.
          const causalEnd = is_causal ? Math.max(0, Math.min(Skv, i + past_len + 1)) : Skv;
          const end = mask ? Math.min(causalEnd, mlen) : causalEnd;
          let attended = false;
          if (!mask) {
            // Float32Array stores round each scaled score, as the spelled-out multiply does.
            if (s !== 1) for (let j = 0; j < end; j++) scores[base + j] = scores[base + j]! * s;
            attended = end > 0;
          } else if (boolMask) {
            for (let j = 0; j < end; j++)
              if (mask[mBase + j]) {
                scores[base + j] = scores[base + j]! * s;
                attended = true;
              } else scores[base + j] = -Infinity;
          } else {
            for (let j = 0; j < end; j++) {
              const m = mask[mBase + j]!;
              scores[base + j] = Math.fround(scores[base + j]! * s) + m;
              if (m !== -Infinity) attended = true;
            }
          }
          for (let j = end; j < Skv; j++) scores[base + j] = -Infinity;
          if (!attended) empty.push(r);
        }
        w.softmax_f32(ps, ps, rows, Skv, 1, false);
        w.matmul_f32(ps, Skv, 1, pv + kv * Dv * 4, Dv, 1, y.ptr + row0 * Dv * 4, rows, Dv, Skv, scratch);
        for (const r of empty) ys.fill(masked_row, (row0 + r) * Dv, (row0 + r + 1) * Dv);
      }
    }
  return y.tensor();
};
