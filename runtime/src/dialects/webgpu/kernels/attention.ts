// WebGPU kernel of raf.op.attention (specs/nn/attention.yaml): one invocation per (batch, query head, query) row, in
// float32. A first pass over the keys finds the row's largest attended score; a second sums exp(score - max) and
// accumulates the weighted values into the output row, which a last step divides by the sum: scores are recomputed
// rather than stored, so no [q_seq, kv_seq] matrix exists. A key is skipped (rather than given -inf, which WGSL does
// not promise to keep) when the mask is false or -inf, past a short mask's last axis, or after the causal limit; a row
// with no key left gets masked_row. nonpad_kv_seqlen is left to the CPU kernel (the builder declines it).

import type { AttentionKernel } from '../../../generated/bridge/attention.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

// batch, q_heads, q_seq, head_size, kv_heads, kv_seq, v_head_size, head ratio, mask kind (0 none, 1 bool, 2 float),
// mask length, mask strides over (batch, head, query), causal, causal offset, scale, softcap, masked_row.
const WORDS = 18;

const SOURCE = `@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<u32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
${paramsWgsl(5, WORDS)}

// The key's additive bias in x, and in y 1 when the query attends the key at all.
fn keyBias(j: u32, qi: u32, mBase: u32) -> vec2<f32> {
  var bias = 0.0;
  let kind = pu(8u);
  if (kind != 0u) {
    if (j >= pu(9u)) { return vec2<f32>(0.0, 0.0); }
    let m = mask[mBase + j];
    if (kind == 1u) {
      if (m == 0u) { return vec2<f32>(0.0, 0.0); }
    } else {
      if (m == 0xff800000u) { return vec2<f32>(0.0, 0.0); }
      bias = bitcast<f32>(m);
    }
  }
  if (pu(13u) != 0u && j > qi + pu(14u)) { return vec2<f32>(0.0, 0.0); }
  return vec2<f32>(bias, 1.0);
}

fn score(qBase: u32, kRow: u32) -> f32 {
  let d = pu(3u);
  var dot = 0.0;
  for (var e = 0u; e < d; e++) { dot += q[qBase + e] * k[kRow * d + e]; }
  var s = dot * pf(15u);
  let cap = pf(16u);
  if (cap > 0.0) { s = cap * tanh(s / cap); }
  return s;
}

${MAIN_1D} {
  ${FLAT_INDEX}
  let hq = pu(1u);
  let sq = pu(2u);
  if (i >= pu(0u) * hq * sq) { return; }
  let skv = pu(5u);
  let dv = pu(6u);
  let qi = i % sq;
  let h = (i / sq) % hq;
  let b = i / (sq * hq);
  let kBase = (b * pu(4u) + h / pu(7u)) * skv;
  let qBase = i * pu(3u);
  let mBase = b * pu(10u) + h * pu(11u) + qi * pu(12u);
  let yBase = i * dv;
  var mx = 0.0;
  var seen = false;
  for (var j = 0u; j < skv; j++) {
    let kb = keyBias(j, qi, mBase);
    if (kb.y == 0.0) { continue; }
    let s = score(qBase, kBase + j) + kb.x;
    if (!seen || s > mx) { mx = s; seen = true; }
  }
  if (!seen) {
    for (var e = 0u; e < dv; e++) { y[yBase + e] = pf(17u); }
    return;
  }
  for (var e = 0u; e < dv; e++) { y[yBase + e] = 0.0; }
  var sum = 0.0;
  for (var j = 0u; j < skv; j++) {
    let kb = keyBias(j, qi, mBase);
    if (kb.y == 0.0) { continue; }
    let p = exp(score(qBase, kBase + j) + kb.x - mx);
    sum += p;
    let vRow = (kBase + j) * dv;
    for (var e = 0u; e < dv; e++) { y[yBase + e] += p * v[vRow + e]; }
  }
  let inv = 1.0 / sum;
  for (var e = 0u; e < dv; e++) { y[yBase + e] *= inv; }
}`;

export const attentionWebgpu: WebGpuBuilder<AttentionKernel> = (
  _attrs,
  out,
  { q, k, v, attn_mask, nonpad_kv_seqlen },
) => {
  const gpu = requireGpu();
  if (out.dtype !== 'float32' || [q, k, v].some((t) => t.dtype !== 'float32') || nonpad_kv_seqlen) return null;
  if (attn_mask && attn_mask.dtype !== 'bool' && attn_mask.dtype !== 'float32') return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('attention', 'f32'), () => SOURCE);
  return ({ q, k, v, attn_mask }, { scale, is_causal, softcap, past_len, masked_row }, kout): Tensor => {
    const [B, Hq, Sq, D] = q.shape as [number, number, number, number];
    const [, Hkv, Skv] = k.shape as [number, number, number];
    const Dv = v.shape[3]!;
    // The mask's strides over (batch, q_heads, q_seq), 0 where it broadcasts; its last axis is contiguous.
    const mshape = attn_mask ? [1, 1, 1, 1].slice(attn_mask.shape.length).concat(attn_mask.shape) : [1, 1, 1, 1];
    const mstride = [0, 0, 0];
    for (let i = 2, acc = mshape[3]!; i >= 0; i--) {
      mstride[i] = mshape[i] === 1 ? 0 : acc;
      acc *= mshape[i]!;
    }
    const y = allocGpu(gpu, kout);
    const params = new Params()
      .u32(B)
      .u32(Hq)
      .u32(Sq)
      .u32(D)
      .u32(Hkv)
      .u32(Skv)
      .u32(Dv)
      .u32(Hq / Hkv)
      .u32(attn_mask ? (attn_mask.dtype === 'bool' ? 1 : 2) : 0)
      .u32(mshape[3]!)
      .u32(mstride[0]!)
      .u32(mstride[1]!)
      .u32(mstride[2]!)
      .u32(is_causal ? 1 : 0)
      .u32(past_len)
      .f32(scale ?? 1 / Math.sqrt(D))
      .f32(softcap)
      .f32(masked_row)
      .data(WORDS);
    launch(gpu, pipeline, [q, k, v, attn_mask ?? q, y], params, B * Hq * Sq, 'attention');
    return y;
  };
};
