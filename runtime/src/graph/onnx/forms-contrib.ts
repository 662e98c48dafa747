// Importer forms for onnxruntime's contrib ops (domain com.microsoft, and SimplifiedLayerNormalization, which
// onnxruntime registers in the default domain): the ops its quantizers and transformer optimizer write into the models
// they ship; ONNX's preview FlexAttention (domain ai.onnx.preview), whose score and probability modifiers are
// subgraphs converted in place; the training domain's Adagrad, Momentum and Adam update formulas, and its Gradient
// (the graph autodiff pass over the part of the graph it names). Each composes
// from raf-op's ops with the op's documented semantics (onnxruntime's docs/ContribOperators.md, ONNX's Operators.md)
// and refuses, naming the input or attribute, what it does not compute:
//
// - MatMulNBits (the 2-, 4- and 8-bit block quantizer's MatMul): the weight is dequantized once, at import, into a
//   float matrix [K, N] of A's dtype, then MatMul (and the bias): every value (code - zero point) · scale exactly as
//   float32 arithmetic gives it. The weight then takes 32 / bits times its packed size in memory.
// - GatherBlockQuantized (those models' uint8 embedding tables): codes unpacked at import, rows dequantized as read.
// - MatMulBnb4 (bitsandbytes' FP4 and NF4 codes with a per-block absmax): dequantized at import like MatMulNBits.
// - SkipLayerNormalization, SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization: layer_norm and rms_norm
//   over input + skip (+ bias), with the sum as the optional fourth output.
// - Gelu, BiasGelu, FastGelu (the tanh approximation), QuickGelu (x · sigmoid(alpha · x)), BiasAdd.
// - RotaryEmbedding: raf.op.rotary_embedding, position_ids a (batch, sequence) table or one offset.
// - GroupQueryAttention (the decoder attention of onnxruntime-genai's LLM exports): rotary, a KV cache, local windows.
// - FusedConv, FusedGemm, FusedMatMul (onnxruntime's optimized models), DynamicQuantizeMatMul, MatMulIntegerToFloat
//   (its dynamic quantizer over optimized models), EmbedLayerNormalization (BERT's embeddings).
// - MultiHeadAttention (encoder-decoder models' self and cross attention, with a past).
// - Attention (BERT's and GPT-2's fused self-attention): the packed QKV projection, then raf.op.attention with the
//   mask forms onnxruntime takes (a raw 2-D or 3-D 0/1 mask, right-padding lengths) and unidirectional as causal.

import { isFloat } from '../../dtype.ts';
import { add } from '../../generated/api/add.ts';
import { attention } from '../../generated/api/attention.ts';
import { cast } from '../../generated/api/cast.ts';
import { divide } from '../../generated/api/divide.ts';
import { sqrt } from '../../generated/api/sqrt.ts';
import { clip } from '../../generated/api/clip.ts';
import { dynamicQuantizeLinear } from '../../generated/api/dynamic_quantize_linear.ts';
import { hardSigmoid } from '../../generated/api/hard_sigmoid.ts';
import { leakyRelu } from '../../generated/api/leaky_relu.ts';
import { matmulInteger } from '../../generated/api/matmul_integer.ts';
import { relu } from '../../generated/api/relu.ts';
import { sum as sumOf } from '../../generated/api/sum.ts';
import { take } from '../../generated/api/take.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { greater } from '../../generated/api/greater.ts';
import { lessEqual } from '../../generated/api/less_equal.ts';
import { logicalAnd } from '../../generated/api/logical_and.ts';
import { scatterNd } from '../../generated/api/scatter_nd.ts';
import { where } from '../../generated/api/where.ts';
import { gelu } from '../../generated/api/gelu.ts';
import { layerNorm } from '../../generated/api/layer_norm.ts';
import { less } from '../../generated/api/less.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { rmsNorm } from '../../generated/api/rms_norm.ts';
import { rotaryEmbedding } from '../../generated/api/rotary_embedding.ts';
import { sigmoid } from '../../generated/api/sigmoid.ts';
import { split } from '../../generated/api/split.ts';
import { subtract } from '../../generated/api/subtract.ts';
import { tanh } from '../../generated/api/tanh.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { Tensor, tensor, zeros } from '../../tensor.ts';
import { softmax } from '../../generated/api/softmax.ts';
import type { OnnxGraph } from './proto.ts';
import { isSymbolic, replayCalls } from '../trace.ts';
import { autodiff } from '../passes/autodiff.ts';
import { invoke } from '../../dispatch.ts';
import { IMPORTER_FORMS, type Form, type ImportContext } from './forms.ts';
import { valuesOf } from './values.ts';
import { ML_FORMS } from './forms-ml.ts';
import { dequantize, QLINEAR_FORMS, quantizedAt } from './forms-qlinear.ts';
import { ORT_ALIAS_FORMS, ORT_DEFAULT_DOMAIN_FORMS } from './forms-ort-extra.ts';
import { formatOf } from './narrow.ts';

const need = (ctx: ImportContext, i: number, name: string): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`${ctx.node.opType}'s input ${i} (${name}) is required`);
  return t;
};
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const required = (ctx: ImportContext, name: string): number => {
  const v = ctx.attr(name) as number | undefined;
  if (v === undefined) throw new Error(`${ctx.node.opType}'s attribute ${name} is required`);
  return v;
};
/** True when the node asks for output i (it names it). */
const wants = (ctx: ImportContext, i: number) => Boolean(ctx.node.outputs[i]);
const floatInput = (ctx: ImportContext, i: number, name: string): Tensor => {
  const t = need(ctx, i, name);
  if (!isFloat(t.dtype)) throw new Error(`${ctx.node.opType}'s ${name} is ${t.dtype}; it takes float tensors`);
  return t;
};

/** The bytes of a uint8 input known at import. */
function bytesOf(ctx: ImportContext, i: number, name: string): Uint8Array {
  const t = need(ctx, i, name);
  if (t.dtype !== 'uint8') throw new Error(`${ctx.node.opType}'s ${name} is ${t.dtype}; it takes uint8`);
  if (isSymbolic(t))
    throw new Error(
      `${ctx.node.opType}'s ${name} is computed at run time, but must be known when the model is imported`,
    );
  // The tensor's own bytes: a 4-bit weight can hold millions, which a list of numbers would copy twice.
  const data = (t as Tensor).dataSync();
  return data instanceof Uint8Array ? data : Uint8Array.from(data as ArrayLike<number>);
}

/**
 * MatMulNBits: Y = A · dequantize(B)ᵀ (+ bias), B [N, k_blocks, blob] holding each row's codes packed low bits first
 * along K, `bits` each, a scale per (row, block) and a zero point per (row, block): packed uint8 codes, floats of A's
 * dtype, or 2^(bits-1) when absent.
 */
const matMulNBits: Form = (ctx) => {
  const op = 'MatMulNBits';
  const [K, N, bits, block] = [
    required(ctx, 'K'),
    required(ctx, 'N'),
    num(ctx, 'bits', 4),
    required(ctx, 'block_size'),
  ];
  if (bits !== 2 && bits !== 4 && bits !== 8) throw new Error(`${op} bits = ${bits} is not imported (2, 4 or 8)`);
  if (block < 16 || (block & (block - 1)) !== 0)
    throw new Error(`${op} block_size = ${block} is not a power of two of at least 16`);
  if (num(ctx, 'weight_prepacked', 0))
    throw new Error(
      `${op} weight_prepacked = ${num(ctx, 'weight_prepacked', 0)} (an execution provider's own layout) is not imported`,
    );
  if (ctx.input(4)) throw new Error(`${op}'s g_idx input (deprecated) is not imported`);
  const a = floatInput(ctx, 0, 'A');
  if (a.shape.at(-1) !== K) throw new Error(`${op}'s A has ${a.shape.at(-1)} columns; K is ${K}`);
  const kBlocks = Math.ceil(K / block);
  const blob = (block * bits) / 8;
  const codes = bytesOf(ctx, 1, 'B');
  if (codes.length !== N * kBlocks * blob)
    throw new Error(`${op}'s B has ${codes.length} bytes; N × k_blocks × blob_size is ${N} × ${kBlocks} × ${blob}`);
  const scalesT = floatInput(ctx, 2, 'scales');
  const scales = valuesOf(scalesT, `${op}'s scales`);
  if (scales.length !== N * kBlocks)
    throw new Error(`${op}'s scales have ${scales.length} values; N × k_blocks is ${N * kBlocks}`);
  const zpT = ctx.input(3);
  let zero: (n: number, b: number) => number = () => 2 ** (bits - 1);
  if (zpT && zpT.dtype === 'uint8') {
    // Packed like B, each row on whole bytes: ceil(k_blocks · bits / 8) of them.
    const zp = bytesOf(ctx, 3, 'zero_points');
    const row = Math.ceil((kBlocks * bits) / 8);
    if (zp.length !== N * row)
      throw new Error(`${op}'s packed zero_points have ${zp.length} bytes; expected ${N * row}`);
    zero = (n, b) => (zp[n * row + ((b * bits) >> 3)]! >> ((b * bits) & 7)) & ((1 << bits) - 1);
  } else if (zpT) {
    if (!isFloat(zpT.dtype)) throw new Error(`${op}'s zero_points are ${zpT.dtype}; uint8 or A's float type`);
    const zp = valuesOf(zpT, `${op}'s zero_points`);
    if (zp.length !== N * kBlocks)
      throw new Error(`${op}'s zero_points have ${zp.length} values; expected ${N * kBlocks}`);
    zero = (n, b) => zp[n * kBlocks + b]!;
  }
  const w = new Float32Array(K * N);
  const mask = (1 << bits) - 1;
  for (let n = 0; n < N; n++)
    for (let b = 0; b < kBlocks; b++) {
      const [s, z] = [scales[n * kBlocks + b]!, zero(n, b)];
      const base = (n * kBlocks + b) * blob;
      for (let j = 0; j < block && b * block + j < K; j++) {
        const bit = j * bits;
        const q = (codes[base + (bit >> 3)]! >> (bit & 7)) & mask;
        w[(b * block + j) * N + n] = Math.fround(Math.fround(q - z) * s);
      }
    }
  const y = ctx.mapped('MatMul', [a, tensor(w, { dtype: a.dtype, shape: [K, N] })], [])[0]!;
  const bias = ctx.input(5);
  return [bias ? add(y, bias) : y];
};

/** The 16 values of bitsandbytes' 4-bit codes (quant_type 0: FP4, 1: NF4), before the block's absmax scales them. */
const BNB4_CODES: readonly (readonly number[])[] = [
  [
    0, 0.005208333333, 0.66666667, 1, 0.33333333, 0.5, 0.16666667, 0.25, -0, -0.005208333333, -0.66666667, -1,
    -0.33333333, -0.5, -0.16666667, -0.25,
  ],
  [
    -1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334,
    -0.09105003625154495, 0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1,
  ],
];

/**
 * MatMulBnb4 (the bitsandbytes 4-bit quantizer's MatMul, transformers.js's `bnb4` files): B holds the [N, K] weight
 * flattened in row order, two codes a byte (the even element in the high nibble), each block of block_size elements
 * scaled by its absmax; dequantized once at import as code value · absmax in float32, then A · Bᵀ.
 */
const matMulBnb4: Form = (ctx) => {
  const op = 'MatMulBnb4';
  const [K, N, block, type] = [
    required(ctx, 'K'),
    required(ctx, 'N'),
    required(ctx, 'block_size'),
    required(ctx, 'quant_type'),
  ];
  const table = BNB4_CODES[type];
  if (!table) throw new Error(`${op} quant_type = ${type} is not imported (0, FP4, or 1, NF4)`);
  if (block < 16 || (block & (block - 1)) !== 0)
    throw new Error(`${op} block_size = ${block} is not a power of two of at least 16`);
  if (num(ctx, 'transB', 1) !== 1) throw new Error(`${op} transB = 0 is not imported`);
  if (num(ctx, 'training_mode', 0)) throw new Error(`${op} training_mode = 1 is not imported`);
  const a = floatInput(ctx, 0, 'A');
  if (a.shape.at(-1) !== K) throw new Error(`${op}'s A has ${a.shape.at(-1)} columns; K is ${K}`);
  const codes = bytesOf(ctx, 1, 'B');
  if (codes.length !== Math.ceil((N * K) / 2))
    throw new Error(`${op}'s B has ${codes.length} bytes; (N × K + 1) / 2 is ${Math.ceil((N * K) / 2)}`);
  const absmax = valuesOf(floatInput(ctx, 2, 'absmax'), `${op}'s absmax`);
  if (absmax.length !== Math.ceil((N * K) / block))
    throw new Error(
      `${op}'s absmax has ${absmax.length} values; (N × K) / block_size is ${Math.ceil((N * K) / block)}`,
    );
  const w = new Float32Array(K * N);
  for (let i = 0; i < N * K; i++) {
    const code = i % 2 === 0 ? codes[i >> 1]! >> 4 : codes[i >> 1]! & 15;
    // Element (n, k) of the [N, K] weight goes to row k, column n of the [K, N] matrix A multiplies.
    w[(i % K) * N + Math.floor(i / K)] = Math.fround(Math.fround(table[code]!) * absmax[Math.floor(i / block)]!);
  }
  return ctx.mapped('MatMul', [a, tensor(w, { dtype: a.dtype, shape: [K, N] })], []);
};

/**
 * SkipLayerNormalization and SkipSimplifiedLayerNormalization: s = input + skip (+ bias), normalized over the last
 * axis (layer_norm with gamma and beta, or rms_norm with gamma); s is output 3. Outputs 1 and 2 (mean, inv_std_var)
 * are refused.
 */
const skipNorm =
  (simplified: boolean): Form =>
  (ctx) => {
    const x = floatInput(ctx, 0, 'input');
    const skip = floatInput(ctx, 1, 'skip');
    const gamma = floatInput(ctx, 2, 'gamma');
    const beta = simplified ? undefined : ctx.input(3);
    const bias = ctx.input(simplified ? 3 : 4);
    if (wants(ctx, 1) || wants(ctx, 2))
      throw new Error(`${ctx.node.opType}'s mean and inv_std_var outputs are not imported (output and the sum are)`);
    let s = add(x, skip);
    if (bias) s = add(s, bias);
    const eps = num(ctx, 'epsilon', 1e-12);
    const y = simplified ? rmsNorm(s, gamma, -1, eps) : layerNorm(s, gamma, beta ?? 0, -1, eps);
    return [y, s, s, s];
  };

/** SimplifiedLayerNormalization: rms_norm over the axes from `axis` on; the inv_std_var output is refused. */
const simplifiedLayerNorm: Form = (ctx) => {
  if (wants(ctx, 1)) throw new Error('SimplifiedLayerNormalization inv_std_var output is not imported');
  return [
    rmsNorm(floatInput(ctx, 0, 'X'), floatInput(ctx, 1, 'scale'), num(ctx, 'axis', -1), num(ctx, 'epsilon', 1e-5)),
  ];
};

/** 0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³))), of x (+ bias). */
const fastGelu: Form = (ctx) => {
  let x = floatInput(ctx, 0, 'X');
  const bias = ctx.input(1);
  if (bias) x = add(x, bias);
  const inner = multiply(add(x, multiply(multiply(multiply(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
  return [multiply(multiply(x, 0.5), add(tanh(inner), 1))];
};

/** Rotates pairs of channels by position (onnxruntime's RotaryEmbedding: input, position_ids, cos_cache, sin_cache). */
const rotary: Form = (ctx) => {
  if (num(ctx, 'is_packed_batching', 0)) throw new Error('RotaryEmbedding is_packed_batching = 1 is not imported');
  const x = floatInput(ctx, 0, 'input');
  let pos = need(ctx, 1, 'position_ids');
  const [cos, sin] = [floatInput(ctx, 2, 'cos_cache'), floatInput(ctx, 3, 'sin_cache')];
  const [batch, seq] = x.shape.length === 4 ? [x.shape[0]!, x.shape[2]!] : [x.shape[0]!, x.shape[1]!];
  // One position (shape [1]) is the offset of the sequence's first token: positions offset, offset + 1, ...
  if (pos.shape.length === 1) {
    if (pos.shape[0] !== 1)
      throw new Error(`RotaryEmbedding's 1-D position_ids must hold one offset, got ${pos.shape[0]}`);
    const steps = Array.from({ length: batch * seq }, (_, i) => i % seq);
    pos = add(reshape(cast(pos, 'int64'), [1, 1]), tensor(steps, { dtype: 'int64', shape: [batch, seq] }));
  }
  return [
    rotaryEmbedding(
      x,
      cos,
      sin,
      pos,
      num(ctx, 'interleaved', 0) === 1,
      num(ctx, 'num_heads', 0),
      num(ctx, 'rotary_embedding_dim', 0),
    ),
  ];
};

/**
 * The additive mask of a key mask in onnxruntime's forms: fill where a 2-D (batch, keys) or 3-D (batch, queries,
 * keys) mask is 0, or at and past each entry's length (1-D, batch); broadcast to (batch, heads, queries, keys).
 */
function keyMask(op: string, m: Tensor, B: number, T: number, dtype: Tensor['dtype'], fill: number): Tensor {
  const r = m.shape.length;
  let keep: Tensor;
  if (r === 2 || r === 3) keep = cast(m, dtype);
  else if (r === 1 && m.shape[0] === B) {
    const steps = tensor(
      Array.from({ length: T }, (_, i) => i),
      { dtype: 'int64', shape: [1, T] },
    );
    keep = cast(less(steps, reshape(cast(m, 'int64'), [B, 1])), dtype);
  } else throw new Error(`${op}'s mask of shape [${m.shape.join(', ')}] is not imported (2-D, 3-D, or lengths)`);
  const additive = multiply(subtract(1, keep), fill);
  return r === 3 ? expandDims(additive, 1) : reshape(additive, [B, 1, 1, additive.shape.at(-1)!]);
}

/**
 * QAttention (onnxruntime's dynamic quantizer over an optimized BERT): Attention over the dequantized input and weight
 * (input_scale per tensor, weight_scale and weight_zero_point per tensor or per column of the packed QKV weight), the
 * bias, mask_index and past as Attention takes them.
 */
const qAttention: Form = (ctx) => {
  const x = dequantize(ctx, quantizedAt(ctx, 'input', 0, 3, 6));
  const w = dequantize(ctx, quantizedAt(ctx, 'weight', 1, 4, 7), 1);
  // Attention's inputs: input, weights, bias, mask_index, past.
  const inputs = [x, w, ctx.input(2), ctx.input(5), ctx.input(8)];
  return contribAttention({ ...ctx, input: (i) => inputs[i] });
};

/**
 * MultiHeadAttention (com.microsoft): query (batch, sequence, heads · size), key and value (batch, kv, heads · size),
 * or already split into heads (batch, heads, kv, size); bias added to the 3-D ones; key_padding_mask as Attention's
 * mask_index, attention_bias added, unidirectional causal; past key and value concatenated before the new ones, the
 * results given as present. Packed QKV or KV, past_sequence_length and cache_indirection are refused.
 */
const multiHeadAttention: Form = (ctx) => {
  const op = 'MultiHeadAttention';
  const heads = required(ctx, 'num_heads');
  const query = floatInput(ctx, 0, 'query');
  const [key, value] = [ctx.input(1), ctx.input(2)];
  if (!key || !value || query.shape.length !== 3 || key.shape.length === 5)
    throw new Error(`${op} with packed QKV or KV is not imported (query, key and value each given)`);
  if (ctx.input(8) || ctx.input(9))
    throw new Error(`${op}'s past_sequence_length and cache_indirection are not imported`);
  if (wants(ctx, 3)) throw new Error(`${op}'s qk output is not imported`);
  const [B, S] = [query.shape[0]!, query.shape[1]!];
  const dq = query.shape[2]! / heads;
  const bias = ctx.input(3);
  const widths = [
    query.shape[2]!,
    key.shape.length === 3 ? key.shape[2]! : 0,
    value.shape.length === 3 ? value.shape[2]! : 0,
  ];
  const parts = bias ? (split(bias, [widths[0]!, widths[0]! + widths[1]!], 0) as Tensor[]) : [];
  const project = (t: Tensor, i: number) => (bias && t.shape.length === 3 ? add(t, parts[i]!) : t);
  const toHeads = (t: Tensor) =>
    t.shape.length === 4
      ? t
      : transpose(reshape(t, [t.shape[0]!, t.shape[1]!, heads, t.shape[2]! / heads]), [0, 2, 1, 3]);
  let [k4, v4] = [toHeads(project(key, 1)), toHeads(project(value, 2))];
  const [pastK, pastV] = [ctx.input(6), ctx.input(7)];
  if (pastK && pastV) [k4, v4] = [concatenate([pastK, k4], 2), concatenate([pastV, v4], 2)];
  const T = k4.shape[2]!;
  const padding = ctx.input(4);
  let mask = padding ? keyMask(op, padding, B, T, query.dtype, num(ctx, 'mask_filter_value', -10000)) : null;
  const extra = ctx.input(5);
  if (extra) mask = mask ? add(mask, extra) : extra;
  const y = attention(
    toHeads(project(query, 0)),
    k4,
    v4,
    mask,
    null,
    (ctx.attr('scale') as number | undefined) ?? 1 / Math.sqrt(dq),
    num(ctx, 'unidirectional', 0) === 1,
    0,
    T - S,
  );
  const dv = v4.shape[3]!;
  return [reshape(transpose(y, [0, 2, 1, 3]), [B, S, heads * dv]), k4, v4];
};

/**
 * Attention (com.microsoft): QKV = input · weights + bias, split at qkv_hidden_sizes (equal thirds by default), heads
 * num_heads; scores scaled by `scale` (1 / sqrt(head_size)), plus mask_filter_value where mask_index is 0 (a 2-D
 * (batch, kv) or 3-D (batch, q, kv) mask) or at and past each entry's length (1-D), plus attention_bias; unidirectional
 * is causal; a past (2, batch, heads, past, size) goes before the new keys and values, which present returns with it.
 * The other mask forms are refused.
 */
const contribAttention: Form = (ctx) => {
  const op = 'Attention';
  const heads = required(ctx, 'num_heads');
  for (const attr of ['do_rotary', 'past_present_share_buffer'])
    if (num(ctx, attr, 0)) throw new Error(`${op} ${attr} = ${num(ctx, attr, 0)} is not imported`);
  if (ctx.input(6)) throw new Error(`${op}'s past_sequence_length input is not imported`);
  const x = floatInput(ctx, 0, 'input');
  const w = floatInput(ctx, 1, 'weights');
  if (x.shape.length !== 3)
    throw new Error(`${op}'s input must be (batch, sequence, hidden), got rank ${x.shape.length}`);
  const [B, S] = [x.shape[0]!, x.shape[1]!];
  const total = w.shape[1]!;
  const sizes = (ctx.attr('qkv_hidden_sizes') as number[] | undefined) ?? [total / 3, total / 3, total / 3];
  if (sizes.length !== 3 || sizes[0]! + sizes[1]! + sizes[2]! !== total || sizes[0] !== sizes[1])
    throw new Error(`${op}'s qkv_hidden_sizes [${sizes.join(', ')}] do not split weights' ${total} columns`);
  if (sizes.some((s) => s % heads !== 0))
    throw new Error(`${op}'s hidden sizes are not multiples of num_heads ${heads}`);
  let qkv = ctx.mapped('MatMul', [x, w], [])[0]!;
  const bias = ctx.input(2);
  if (bias) qkv = add(qkv, bias);
  const [q, k, v] = split(qkv, [sizes[0]!, sizes[0]! + sizes[1]!], 2) as [Tensor, Tensor, Tensor];
  const toHeads = (t: Tensor, width: number) => transpose(reshape(t, [B, S, heads, width / heads]), [0, 2, 1, 3]);
  const scale = (ctx.attr('scale') as number | undefined) ?? 1 / Math.sqrt(sizes[0]! / heads);
  let [k4, v4] = [toHeads(k, sizes[1]!), toHeads(v, sizes[2]!)];
  // past (2, batch, heads, past, size): keys then values, before the new ones; present is the same stack, longer.
  const past = ctx.input(4);
  if (past) {
    const [pk, pv] = split(past, 2, 0).map((t) => reshape(t, past.shape.slice(1))) as [Tensor, Tensor];
    [k4, v4] = [concatenate([pk, k4], 2), concatenate([pv, v4], 2)];
  }
  const T = k4.shape[2]!;
  const maskIndex = ctx.input(3);
  let mask = maskIndex ? keyMask(op, maskIndex, B, T, x.dtype, num(ctx, 'mask_filter_value', -10000)) : null;
  const extra = ctx.input(5);
  if (extra) mask = mask ? add(mask, extra) : extra;
  const y = attention(toHeads(q, sizes[0]!), k4, v4, mask, null, scale, num(ctx, 'unidirectional', 0) === 1, 0, T - S);
  const present = wants(ctx, 1) ? [concatenate([expandDims(k4, 0), expandDims(v4, 0)], 0)] : [];
  return [reshape(transpose(y, [0, 2, 1, 3]), [B, S, sizes[2]!]), ...present];
};

/**
 * GroupQueryAttention (onnxruntime's decoder attention with a KV cache): query (or packed QKV), key and value (batch,
 * sequence, heads · head_size); entry b holds seqlens_k[b] + 1 tokens in all, of which the last `sequence` are new, so
 * its past length is seqlens_k[b] + 1 - sequence (0 on a first prompt, a call without past). The new keys and values
 * (rotated first when do_rotary, at those positions or position_ids) are written after the entry's past in present
 * (past length + sequence long, zeros past the entry's length); query i attends keys j < seqlens_k[b] + 1, j ≤ past +
 * i when causal, and j > past + i - local_window_size. Quantized caches, window-sized caches, head sinks, smooth
 * softmax, QK output and the Q/K norm weights are refused.
 */
const groupQueryAttention: Form = (ctx) => {
  const op = 'GroupQueryAttention';
  const [Hq, Hkv] = [required(ctx, 'num_heads'), required(ctx, 'kv_num_heads')];
  for (const attr of ['sliding_window_cache', 'smooth_softmax', 'qk_output'])
    if (num(ctx, attr, 0)) throw new Error(`${op} ${attr} = ${num(ctx, attr, 0)} is not imported`);
  for (const attr of ['k_quant_type', 'v_quant_type']) {
    const v = ctx.attr(attr) as string | undefined;
    if (v !== undefined && v !== 'NONE') throw new Error(`${op} ${attr} = '${v}' (a quantized cache) is not imported`);
  }
  ['head_sink', 'k_scale', 'v_scale', 'q_norm_weight', 'k_norm_weight'].forEach((name, k) => {
    if (ctx.input(11 + k)) throw new Error(`${op}'s ${name} input is not imported`);
  });
  if (wants(ctx, 3)) throw new Error(`${op}'s output_qk is not imported`);
  const query = floatInput(ctx, 0, 'query');
  if (query.shape.length !== 3)
    throw new Error(`${op}'s query must be (batch, sequence, hidden), got rank ${query.shape.length}`);
  const [B, S] = [query.shape[0]!, query.shape[1]!];
  let [q, k, v] = [query, ctx.input(1), ctx.input(2)];
  let D: number;
  if (!k || !v) {
    D = query.shape[2]! / (Hq + 2 * Hkv);
    [q, k, v] = split(query, [Hq * D, (Hq + Hkv) * D], 2) as [Tensor, Tensor, Tensor];
  } else D = query.shape[2]! / Hq;
  if (!Number.isInteger(D)) throw new Error(`${op}'s query width ${query.shape[2]} does not divide into ${Hq} heads`);
  // Positions computed in float32 (exact below 2^24), which every device's elementwise kernels take; int32 only where
  // they index (rotary's rows, the cache's scatter).
  const seqlens = cast(need(ctx, 5, 'seqlens_k'), 'float32');
  const pastK = ctx.input(3);
  const pastV = ctx.input(4);
  if (Boolean(pastK) !== Boolean(pastV)) throw new Error(`${op} needs both past_key and past_value, or neither`);
  for (const t of [pastK, pastV])
    if (t && !isFloat(t.dtype)) throw new Error(`${op}'s past cache is ${t.dtype} (quantized); it is not imported`);
  const P = pastK ? pastK.shape[2]! : 0;
  // Each entry's past length: 0 on a first prompt, else seqlens_k + 1 - sequence. [B, 1]
  const past = P === 0 ? null : subtract(reshape(seqlens, [B, 1]), S - 1);
  const steps = tensor(
    Array.from({ length: S }, (_, i) => i),
    { dtype: 'float32', shape: [1, S] },
  );
  const positions = past ? add(past, steps) : add(steps, zeros([B, 1], 'float32'));
  if (num(ctx, 'do_rotary', 0)) {
    const [cos, sin] = [floatInput(ctx, 7, 'cos_cache'), floatInput(ctx, 8, 'sin_cache')];
    const given = ctx.input(9);
    const pos = cast(given ?? positions, 'int32');
    const inter = num(ctx, 'rotary_interleaved', 0) === 1;
    q = rotaryEmbedding(q, cos, sin, pos, inter, Hq, 2 * cos.shape[1]!);
    k = rotaryEmbedding(k, cos, sin, pos, inter, Hkv, 2 * cos.shape[1]!);
  }
  const heads = (t: Tensor, h: number) => transpose(reshape(t, [B, S, h, D]), [0, 2, 1, 3]);
  let [k4, v4] = [heads(k, Hkv), heads(v, Hkv)];
  if (pastK && pastV && P > 0) {
    // present[b, h, past_b + s] = new[b, h, s]: index tuples (b, h, t) over (B, Hkv, S).
    const T = P + S;
    const at = (f: (b: number, h: number, s: number) => number) =>
      tensor(
        Array.from({ length: B * Hkv * S }, (_, i) => f(Math.floor(i / (Hkv * S)), Math.floor(i / S) % Hkv, i % S)),
        { dtype: 'int32', shape: [B, Hkv, S, 1] },
      );
    const t = reshape(add(reshape(past!, [B, 1, 1, 1]), reshape(steps, [1, 1, S, 1])), [B, 1, S, 1]);
    const tAll = cast(add(t, zeros([1, Hkv, 1, 1], 'float32')), 'int32');
    const index = concatenate([at((b) => b), at((_, h) => h), tAll], 3);
    // Rows at and past an entry's length hold zeros, as onnxruntime's CPU kernel leaves them.
    const rows = tensor(
      Array.from({ length: T }, (_, j) => j),
      { dtype: 'float32', shape: [1, 1, T, 1] },
    );
    const kept = less(rows, reshape(add(seqlens, 1), [B, 1, 1, 1]));
    const place = (cache: Tensor, fresh: Tensor) =>
      where(kept, scatterNd(concatenate([cache, zeros(fresh.shape, fresh.dtype)], 2), index, fresh), 0);
    [k4, v4] = [place(pastK, k4), place(pastV, v4)];
    if (k4.shape[2] !== T) throw new Error(`${op}: present has ${k4.shape[2]} positions, expected ${T}`);
  }
  const T = k4.shape[2]!;
  // valid[b, 0, i, j]: j < seqlens_k[b] + 1, and j ≤ past_b + i (causal), and j > past_b + i - window.
  const keys = tensor(
    Array.from({ length: T }, (_, j) => j),
    { dtype: 'float32', shape: [1, 1, 1, T] },
  );
  const qpos = reshape(positions, [B, 1, S, 1]);
  let valid = less(keys, reshape(add(seqlens, 1), [B, 1, 1, 1]));
  if (num(ctx, 'causal', 1)) valid = logicalAnd(valid, lessEqual(keys, qpos));
  const window = num(ctx, 'local_window_size', -1);
  if (window > 0) valid = logicalAnd(valid, greater(keys, subtract(qpos, window)));
  const bias = ctx.input(10);
  const mask = bias ? where(valid, bias, -Infinity) : valid;
  const y = attention(
    heads(q, Hq),
    k4,
    v4,
    mask,
    null,
    (ctx.attr('scale') as number | undefined) || 1 / Math.sqrt(D),
    false,
    num(ctx, 'softcap', 0),
  );
  return [reshape(transpose(y, [0, 2, 1, 3]), [B, S, Hq * D]), k4, v4];
};

/** An activation onnxruntime's fused kernels name by string, with its parameters. */
function activation(op: string, x: Tensor, name: string, params: readonly number[]): Tensor {
  switch (name) {
    case '':
      return x;
    case 'Relu':
      return relu(x);
    case 'Tanh':
      return tanh(x);
    case 'Sigmoid':
      return sigmoid(x);
    case 'LeakyRelu':
      return leakyRelu(x, params[0] ?? 0.01);
    case 'HardSigmoid':
      return hardSigmoid(x, params[0] ?? 0.2, params[1] ?? 0.5);
    case 'Clip':
      return clip(x, params[0] ?? -Infinity, params[1] ?? Infinity);
    default:
      throw new Error(`${op} activation '${name}' is not imported (Relu, Tanh, Sigmoid, LeakyRelu, HardSigmoid, Clip)`);
  }
}

/** FusedConv: Conv (the default domain's form), plus Z, then the activation. */
const fusedConv: Form = (ctx) => {
  let y = (IMPORTER_FORMS.Conv!(ctx) as Tensor[])[0]!;
  const z = ctx.input(3);
  if (z) y = add(y, z);
  const params = (ctx.attr('activation_params') as number[] | undefined) ?? [];
  return [activation('FusedConv', y, (ctx.attr('activation') as string | undefined) ?? '', params)];
};

/** FusedGemm: Gemm (the default domain's form), then the activation with activation_alpha and activation_beta. */
const fusedGemm: Form = (ctx) => {
  const y = (IMPORTER_FORMS.Gemm!(ctx) as Tensor[])[0]!;
  const params = [ctx.attr('activation_alpha'), ctx.attr('activation_beta')].filter((v) => v !== undefined) as number[];
  return [activation('FusedGemm', y, (ctx.attr('activation') as string | undefined) ?? '', params)];
};

/** FusedMatMul: alpha · (A or Aᵀ) · (B or Bᵀ) over the last two axes; the batch transposes are refused. */
const fusedMatMul: Form = (ctx) => {
  for (const attr of ['transBatchA', 'transBatchB'])
    if (num(ctx, attr, 0)) throw new Error(`FusedMatMul ${attr} = 1 is not imported`);
  const swap = (t: Tensor) => {
    const r = t.shape.length;
    if (r < 2) throw new Error('FusedMatMul transposes an operand of rank 2 or more');
    return transpose(t, [...Array.from({ length: r - 2 }, (_, i) => i), r - 1, r - 2]);
  };
  let [a, b] = [floatInput(ctx, 0, 'A'), floatInput(ctx, 1, 'B')];
  if (num(ctx, 'transA', 0)) a = swap(a);
  if (num(ctx, 'transB', 0)) b = swap(b);
  const y = ctx.mapped('MatMul', [a, b], [])[0]!;
  const alpha = num(ctx, 'alpha', 1);
  return [alpha === 1 ? y : multiply(y, alpha)];
};

/**
 * An integer product's int32 accumulator to floats: acc · (a_scale · b_scale) (+ bias), b_scale per tensor or per
 * column, as onnxruntime's quantized GEMM scales its output.
 */
function scaledProduct(acc: Tensor, aScale: Tensor, bScale: Tensor, bias: Tensor | undefined): Tensor {
  const y = multiply(cast(acc, aScale.dtype), multiply(aScale, bScale));
  return bias ? add(y, bias) : y;
}

/** DynamicQuantizeMatMul: A quantized as DynamicQuantizeLinear does, times B (int8 or uint8), scaled, + bias. */
const dynamicQuantizeMatMul: Form = (ctx) => {
  const [aq, aScale, aZero] = dynamicQuantizeLinear(floatInput(ctx, 0, 'A')) as [Tensor, Tensor, Tensor];
  const acc = matmulInteger(aq, need(ctx, 1, 'B'), aZero, ctx.input(3) ?? null);
  return [scaledProduct(acc, aScale, floatInput(ctx, 2, 'b_scale'), ctx.input(4))];
};

/** MatMulIntegerToFloat: (A - a_zero_point) · (B - b_zero_point) · a_scale · b_scale (+ bias). */
const matMulIntegerToFloat: Form = (ctx) => {
  const acc = matmulInteger(need(ctx, 0, 'A'), need(ctx, 1, 'B'), ctx.input(4) ?? null, ctx.input(5) ?? null);
  return [scaledProduct(acc, floatInput(ctx, 2, 'a_scale'), floatInput(ctx, 3, 'b_scale'), ctx.input(6))];
};

/**
 * EmbedLayerNormalization (BERT's embeddings): word, position (position_ids, or 0..sequence) and segment embeddings
 * summed and layer-normalized; mask_index is each row's count of nonzero mask values (its length), embedding_sum the
 * sum before normalization.
 */
const embedLayerNorm: Form = (ctx) => {
  const ids = need(ctx, 0, 'input_ids');
  if (ids.shape.length !== 2) throw new Error(`EmbedLayerNormalization's input_ids must be (batch, sequence)`);
  const [B, S] = [ids.shape[0]!, ids.shape[1]!];
  const given = ctx.input(8);
  const positions =
    given ??
    tensor(
      Array.from({ length: S }, (_, i) => i),
      { dtype: 'int32', shape: [1, S] },
    );
  let sum = add(
    take(floatInput(ctx, 2, 'word_embedding'), ids, 0),
    take(floatInput(ctx, 3, 'position_embedding'), positions, 0),
  );
  const segIds = ctx.input(1);
  const segEmb = ctx.input(4);
  if (segIds && segEmb) sum = add(sum, take(segEmb, segIds, 0));
  const y = layerNorm(sum, floatInput(ctx, 5, 'gamma'), floatInput(ctx, 6, 'beta'), -1, num(ctx, 'epsilon', 1e-12));
  const mask = ctx.input(7);
  const lengths = mask
    ? sumOf(cast(cast(mask, 'bool'), 'int32'), [1])
    : tensor(new Array(B).fill(0), { dtype: 'int32', shape: [B] });
  return [y, lengths, sum];
};

/**
 * GatherBlockQuantized over uint8 data (the embedding tables of 4-bit models): the codes unpacked once at import
 * (low bits first along the last axis), then gathered along axis 0 with their scales and zero points (packed like the
 * data, 2^(bits-1) when absent) and dequantized, (code - zero point) · scale, for the rows read. int4, uint4, float8
 * and float4 data, other axes, and out-of-range indices (zeros in onnxruntime) are not imported.
 */
const gatherBlockQuantized: Form = (ctx) => {
  const op = 'GatherBlockQuantized';
  const [bits, block] = [num(ctx, 'bits', 4), num(ctx, 'block_size', 128)];
  if (bits !== 2 && bits !== 4 && bits !== 8) throw new Error(`${op} bits = ${bits} is not imported (2, 4 or 8)`);
  if (block < 16 || (block & (block - 1)) !== 0)
    throw new Error(`${op} block_size = ${block} is not a power of two of at least 16`);
  const data = need(ctx, 0, 'data');
  const r = data.shape.length;
  // int4 and uint4 tables arrive unpacked (their int8 and uint8 carriers, narrow.ts); uint8 ones hold packed codes.
  const format = formatOf(data);
  if (format !== undefined && format !== 'int4' && format !== 'uint4')
    throw new Error(`${op} of ${format} data is not imported (uint8, int4 and uint4 are)`);
  if (format && bits !== 4) throw new Error(`${op} of ${format} data has bits = ${bits}; ${format} is 4 bits`);
  if (!format && data.dtype !== 'uint8') throw new Error(`${op} of ${data.dtype} data is not imported (uint8 is)`);
  const axis = (name: string, dflt: number) => {
    const a = num(ctx, name, dflt);
    return a < 0 ? a + r : a;
  };
  if (axis('gather_axis', 0) !== 0) throw new Error(`${op} gather_axis other than 0 is not imported`);
  if (axis('quantize_axis', 1) !== r - 1) throw new Error(`${op} quantize_axis other than the last is not imported`);
  const per = format ? 1 : 8 / bits;
  const K = data.shape[r - 1]! * per;
  const kBlocks = Math.ceil(K / block);
  const lead = data.shape.slice(0, r - 1);
  const rows = lead.reduce((a, b) => a * b, 1);
  const unpack = (bytes: Uint8Array, width: number, count: number) => {
    const out = new Uint8Array((bytes.length / width) * count);
    const mask = (1 << bits) - 1;
    for (let row = 0; row < bytes.length / width; row++)
      for (let j = 0; j < count; j++) {
        const bit = j * bits;
        out[row * count + j] = (bytes[row * width + (bit >> 3)]! >> (bit & 7)) & mask;
      }
    return out;
  };
  // Codes padded to whole blocks, so that each block is one row of a [..., k_blocks, block] view.
  const codes = format === 'int4' ? new Int8Array(rows * kBlocks * block) : new Uint8Array(rows * kBlocks * block);
  const known = (t: Tensor, what: string): Int8Array | Uint8Array => {
    if (isSymbolic(t)) throw new Error(`${op}'s ${what} must be known at import (an initializer)`);
    return (t as Tensor).dataSync() as Int8Array | Uint8Array;
  };
  const unpacked = format ? known(data, 'data') : unpack(bytesOf(ctx, 0, 'data'), data.shape[r - 1]!, K);
  for (let row = 0; row < rows; row++) codes.set(unpacked.subarray(row * K, row * K + K), row * kBlocks * block);
  const scales = floatInput(ctx, 2, 'scales');
  if (scales.size !== rows * kBlocks)
    throw new Error(`${op}'s scales have ${scales.size} values; expected ${rows * kBlocks} (${kBlocks} per row)`);
  const zpT = ctx.input(3);
  // Without zero points: the middle of the range for packed uint8 codes (8 for 4 bits); 0 for int4 and uint4 tables,
  // as onnxruntime reads them.
  let zero: Tensor | number = format ? 0 : 2 ** (bits - 1);
  if (zpT && format) {
    if (formatOf(zpT) !== format || zpT.size !== rows * kBlocks)
      throw new Error(`${op}'s zero_points must be ${format} like the data, ${kBlocks} a row`);
    zero = tensor(Array.from(known(zpT, 'zero_points')), { dtype: scales.dtype, shape: [...lead, kBlocks, 1] });
  } else if (zpT) {
    const width = zpT.shape.at(-1)!;
    if (zpT.dtype !== 'uint8' || zpT.size !== rows * width || width !== Math.ceil((kBlocks * bits) / 8))
      throw new Error(
        `${op}'s zero_points must be uint8 packed like the data, ${Math.ceil((kBlocks * bits) / 8)} a row`,
      );
    const zp = unpack(bytesOf(ctx, 3, 'zero_points'), width, kBlocks);
    zero = tensor(Array.from(zp), { dtype: scales.dtype, shape: [...lead, kBlocks, 1] });
  }
  const indices = need(ctx, 1, 'indices');
  const table = tensor(codes, { dtype: format === 'int4' ? 'int8' : 'uint8', shape: [...lead, kBlocks, block] });
  const q = cast(take(table, indices, 0), scales.dtype);
  const s = take(reshape(scales, [...lead, kBlocks, 1]), indices, 0);
  const z = typeof zero === 'number' ? zero : take(zero, indices, 0);
  const y = multiply(subtract(q, z), s);
  const shape = [...indices.shape, ...lead.slice(1)];
  const flat = reshape(y, [...shape, kBlocks * block]);
  return [K === kBlocks * block ? flat : split(flat, [K], shape.length)[0]!];
};

/**
 * FlexAttention (ai.onnx.preview): q (batch, q heads, L, E) against k and v (batch, kv heads, S, ·), kv heads shared
 * by groups of query heads; scores q·kᵀ scaled by `scale` (1 / sqrt(E)), then the score_mod subgraph (scores in,
 * scores out) if any, softmax over keys, the prob_mod subgraph if any, and · v.
 */
const flexAttention: Form = (ctx) => {
  const op = 'FlexAttention';
  const [q, k, v] = [floatInput(ctx, 0, 'Q'), floatInput(ctx, 1, 'K'), floatInput(ctx, 2, 'V')];
  if (q.shape.length !== 4 || k.shape.length !== 4 || v.shape.length !== 4)
    throw new Error(`${op} takes 4-D Q, K and V (batch, heads, sequence, size)`);
  const [Hq, Hkv] = [q.shape[1]!, k.shape[1]!];
  if (Hq % Hkv !== 0) throw new Error(`${op}: ${Hq} query heads do not group over ${Hkv} kv heads`);
  const share = (t: Tensor) =>
    Hq === Hkv
      ? t
      : take(
          t,
          tensor(
            Array.from({ length: Hq }, (_, h) => Math.floor(h / (Hq / Hkv))),
            { dtype: 'int64' },
          ),
          1,
        );
  const root = Math.sqrt((ctx.attr('scale') as number | undefined) ?? 1 / Math.sqrt(q.shape[3]!));
  const kt = transpose(multiply(share(k), root), [0, 1, 3, 2]);
  let scores = ctx.mapped('MatMul', [multiply(q, root), kt], [])[0]!;
  const mod = (name: string, t: Tensor) => {
    const g = ctx.attr(name) as OnnxGraph | undefined;
    if (!g) return t;
    const [out] = ctx.subgraph(g, [t]);
    if (!(out instanceof Tensor)) throw new Error(`${op}'s ${name} gives no tensor`);
    return out;
  };
  scores = mod('score_mod', scores);
  const probs = mod('prob_mod', softmax(scores, -1));
  return [ctx.mapped('MatMul', [probs, share(v)], [])[0]!];
};

/**
 * The training domain's optimizers (ai.onnx.preview.training Adagrad, Momentum, Adam) as their documented update
 * formulas over groups of tensors (R, T, then each group's X..., G..., and its state...); T, the step count, must be
 * known when the model is imported (an integer scalar input is).
 */
const trainingOptimizer =
  (kind: 'Adagrad' | 'Momentum' | 'Adam'): Form =>
  (ctx) => {
    const groups = kind === 'Adam' ? 4 : 3;
    const count = (ctx.node.inputs.length - 2) / groups;
    if (!Number.isInteger(count) || count < 1)
      throw new Error(`${kind} takes R, T and ${groups} tensors per optimized tensor`);
    const R = floatInput(ctx, 0, 'R');
    const step = valuesOf(need(ctx, 1, 'T'), `${kind}'s T`)[0]!;
    const at = (g: number, i: number) => floatInput(ctx, 2 + g * count + i, 'a tensor');
    const norm = num(ctx, 'norm_coefficient', 0);
    const outs: Tensor[][] = Array.from({ length: groups - 1 }, () => []);
    for (let i = 0; i < count; i++) {
      const [x, grad] = [at(0, i), at(1, i)];
      const g = norm ? add(multiply(x, norm), grad) : grad;
      if (kind === 'Adagrad') {
        const r = divide(R, 1 + step * num(ctx, 'decay_factor', 0));
        const h = add(at(2, i), multiply(g, g));
        outs[0]!.push(subtract(x, divide(multiply(r, g), add(sqrt(h), num(ctx, 'epsilon', 0)))));
        outs[1]!.push(h);
      } else if (kind === 'Momentum') {
        const alpha = required(ctx, 'alpha');
        const mode = (ctx.attr('mode') as string | undefined) ?? 'standard';
        if (mode !== 'standard' && mode !== 'nesterov') throw new Error(`Momentum mode '${mode}' is not imported`);
        const v = add(multiply(at(2, i), alpha), multiply(g, step > 0 ? required(ctx, 'beta') : 1));
        const move = mode === 'standard' ? v : add(g, multiply(v, alpha));
        outs[0]!.push(subtract(x, multiply(R, move)));
        outs[1]!.push(v);
      } else {
        const [alpha, beta] = [num(ctx, 'alpha', 0.9), num(ctx, 'beta', 0.999)];
        const v = add(multiply(at(2, i), alpha), multiply(g, 1 - alpha));
        const h = add(multiply(at(3, i), beta), multiply(multiply(g, g), 1 - beta));
        const r = step > 0 ? multiply(R, Math.sqrt(1 - beta ** step) / (1 - alpha ** step)) : R;
        const xNew = subtract(x, multiply(r, divide(v, add(sqrt(h), num(ctx, 'epsilon', 0)))));
        const post = num(ctx, 'norm_coefficient_post', 0);
        outs[0]!.push(post ? multiply(xNew, 1 - post) : xNew);
        outs[1]!.push(v);
        outs[2]!.push(h);
      }
    }
    return outs.flat();
  };

/**
 * The training domain's Gradient: the derivatives of the graph's value `y` with respect to the values named by `xs`,
 * at the node's inputs (xs', then zs' values). The part of the graph that computes y from xs and zs is converted again
 * over those inputs, differentiated by the graph autodiff pass, seeded with ones as ONNX's reference is (a non-scalar
 * y gives the gradient of its sum), and its backward calls recorded in place.
 */
const gradient: Form = (ctx) => {
  // A list of strings arrives joined by NUL (proto.ts).
  const names = (attr: string) => {
    const v = ctx.attr(attr);
    return typeof v === 'string' && v ? v.split('\u0000') : [];
  };
  const [xs, zs] = [names('xs'), names('zs')];
  const y = ctx.attr('y');
  if (!xs.length) throw new Error('Gradient needs xs, the names of the values to differentiate by');
  if (typeof y !== 'string') throw new Error('Gradient needs y, the name of the value to differentiate');
  if (ctx.node.inputs.length !== xs.length + zs.length)
    throw new Error(`Gradient has ${ctx.node.inputs.length} inputs for ${xs.length} xs and ${zs.length} zs`);
  const params = [...xs, ...zs].map((name, i) => ({ name, value: need(ctx, i, `the value of '${name}'`) }));
  xs.forEach((name, i) => {
    if (!params[i]!.value.dtype.startsWith('float'))
      throw new Error(`Gradient's xs '${name}' is ${params[i]!.value.dtype}; only float values have gradients`);
  });
  const { graph, outer } = ctx.functionOf(params, y);
  const backward = autodiff(graph, { wrt: xs.map((_, i) => i), seed: 'ones' });
  const env = replayCalls(backward, [...params.map((p) => p.value), ...outer], (op, args) => invoke(op, args));
  return backward.outputs.slice(1).map((a) => (a.kind === 'var' ? env.get(a)! : a.value));
};

/** Forms keyed `domain.OpType`, for nodes outside the default domain. */
export const CONTRIB_FORMS: Readonly<Record<string, Form>> = {
  'com.microsoft.MatMulNBits': matMulNBits,
  'com.microsoft.MatMulBnb4': matMulBnb4,
  'com.microsoft.GatherBlockQuantized': gatherBlockQuantized,
  'com.microsoft.SkipLayerNormalization': skipNorm(false),
  'com.microsoft.SkipSimplifiedLayerNormalization': skipNorm(true),
  'com.microsoft.Gelu': (ctx) => [gelu(floatInput(ctx, 0, 'X'))],
  'com.microsoft.BiasGelu': (ctx) => [gelu(add(floatInput(ctx, 0, 'A'), floatInput(ctx, 1, 'B')))],
  'com.microsoft.FastGelu': fastGelu,
  'com.microsoft.QuickGelu': (ctx) => {
    const x = floatInput(ctx, 0, 'X');
    return [multiply(x, sigmoid(multiply(x, num(ctx, 'alpha', 1.702))))];
  },
  'com.microsoft.BiasAdd': (ctx) => [
    add(add(floatInput(ctx, 0, 'X'), floatInput(ctx, 1, 'bias')), floatInput(ctx, 2, 'skip')),
  ],
  'com.microsoft.RotaryEmbedding': rotary,
  'com.microsoft.Attention': contribAttention,
  'com.microsoft.QAttention': qAttention,
  'com.microsoft.GroupQueryAttention': groupQueryAttention,
  'com.microsoft.MultiHeadAttention': multiHeadAttention,
  'com.microsoft.FusedConv': fusedConv,
  'com.microsoft.FusedGemm': fusedGemm,
  'com.microsoft.FusedMatMul': fusedMatMul,
  'com.microsoft.TransposeMatMul': fusedMatMul,
  'com.microsoft.DynamicQuantizeMatMul': dynamicQuantizeMatMul,
  'com.microsoft.MatMulIntegerToFloat': matMulIntegerToFloat,
  'com.microsoft.EmbedLayerNormalization': embedLayerNorm,
  'ai.onnx.preview.FlexAttention': flexAttention,
  'ai.onnx.preview.training.Adagrad': trainingOptimizer('Adagrad'),
  'ai.onnx.preview.training.Momentum': trainingOptimizer('Momentum'),
  'ai.onnx.preview.training.Adam': trainingOptimizer('Adam'),
  'ai.onnx.preview.training.Gradient': gradient,
  ...QLINEAR_FORMS,
  ...ORT_ALIAS_FORMS,
  ...ML_FORMS,
};

/** onnxruntime's contrib ops it registers in the default domain. */
export const DEFAULT_DOMAIN_CONTRIB_FORMS: Readonly<Record<string, Form>> = {
  SimplifiedLayerNormalization: simplifiedLayerNorm,
  ...ORT_DEFAULT_DOMAIN_FORMS,
};
