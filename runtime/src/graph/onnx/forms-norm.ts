// Importer forms for ONNX's reductions and normalizations (registered in forms.ts's IMPORTER_FORMS): every Reduce* op
// with its axes as an attribute (old opsets) or an input, noop_with_empty_axes, empty-set reductions and integer inputs
// as ONNX specifies them; LayerNormalization's Mean and InvStdDev outputs.

import { INTEGER_RANGE, isFloat, isInteger, type DType } from '../../dtype.ts';
import { invoke } from '../../dispatch.ts';
import { abs } from '../../generated/api/abs.ts';
import { add } from '../../generated/api/add.ts';
import { attention } from '../../generated/api/attention.ts';
import { cast } from '../../generated/api/cast.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { divide } from '../../generated/api/divide.ts';
import { equal } from '../../generated/api/equal.ts';
import { groupNorm } from '../../generated/api/group_norm.ts';
import { layerNorm } from '../../generated/api/layer_norm.ts';
import { log } from '../../generated/api/log.ts';
import { matmul } from '../../generated/api/matmul.ts';
import { max } from '../../generated/api/max.ts';
import { mean } from '../../generated/api/mean.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { reduceL1 } from '../../generated/api/reduce_l1.ts';
import { reduceL2 } from '../../generated/api/reduce_l2.ts';
import { rsqrt } from '../../generated/api/rsqrt.ts';
import { softmax } from '../../generated/api/softmax.ts';
import { sqrt } from '../../generated/api/sqrt.ts';
import { subtract } from '../../generated/api/subtract.ts';
import { take } from '../../generated/api/take.ts';
import { tanh } from '../../generated/api/tanh.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { where } from '../../generated/api/where.ts';
import { getOp } from '../../registry.ts';
import { normalizeAxis, sizeOf } from '../../shape.ts';
import { tensor, zeros, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';
import { importedDType, valuesOf } from './values.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;

/** Refuses an attribute the form does not read, naming it: an unread attribute would silently change the result. */
function onlyAttrs(ctx: ImportContext, names: readonly string[]): void {
  for (const a of ctx.node.attrs)
    if (!names.includes(a.name))
      throw new Error(
        `attribute '${a.name}' is not imported for ${ctx.node.opType} (only ${names.join(', ') || 'none'})`,
      );
}

interface Reduction {
  /** The raf-op op that reduces. */
  readonly op: string;
  /** The first opset whose axes are an input (before it, an attribute). */
  readonly axesInput: number;
  /** Computes in floats: an integer input is reduced in float64 and the result cast back (truncated), as ONNX keeps T. */
  readonly float: boolean;
  /** The result of reducing over no axes (noop_with_empty_axes = 1 with empty axes): the op's elementwise part. */
  readonly none: (x: Tensor) => Tensor;
  /** The value of an empty reduction where the op has no identity (ReduceMax/Min), per dtype. */
  readonly emptyValue?: (dtype: DType) => number;
}

/** ReduceMax/ReduceMin of an empty set: the dtype's lowest / highest value, as ONNX's reference gives. */
const extreme =
  (low: boolean) =>
  (dtype: DType): number => {
    if (isFloat(dtype)) return low ? -Infinity : Infinity;
    if (dtype === 'bool') return low ? 0 : 1;
    // Fixed-width integers (and uint64's lowest, 0) are exact; int64's extremes and uint64's highest are not.
    if (isInteger(dtype) && !(dtype === 'int64' || (dtype === 'uint64' && !low)))
      return INTEGER_RANGE[dtype][low ? 0 : 1];
    throw new Error(
      `an empty ${dtype} reduction gives ${low ? 'INT64_MIN' : 'INT64_MAX'}, beyond raf-op's exact int64`,
    );
  };

const REDUCTIONS: Readonly<Record<string, Reduction>> = {
  ReduceSum: { op: 'sum', axesInput: 13, float: false, none: (x) => x },
  ReduceMean: { op: 'mean', axesInput: 18, float: true, none: (x) => x },
  ReduceMax: { op: 'max', axesInput: 18, float: false, none: (x) => x, emptyValue: extreme(true) },
  ReduceMin: { op: 'min', axesInput: 18, float: false, none: (x) => x, emptyValue: extreme(false) },
  ReduceProd: { op: 'prod', axesInput: 18, float: false, none: (x) => x },
  ReduceLogSumExp: { op: 'logsumexp', axesInput: 18, float: true, none: (x) => x },
  ReduceL1: { op: 'reduce_l1', axesInput: 18, float: false, none: (x) => abs(x) },
  ReduceL2: { op: 'reduce_l2', axesInput: 18, float: true, none: (x) => abs(x) },
  ReduceSumSquare: { op: 'sum_square', axesInput: 18, float: false, none: (x) => multiply(x, x) },
  ReduceLogSum: { op: 'log_sum', axesInput: 18, float: true, none: (x) => log(x) },
};

/**
 * A Reduce* node: axes from the attribute or input (empty or absent: every axis, or none with noop_with_empty_axes),
 * keepdims defaulting to 1. Reducing over no axes leaves each element alone, so the op's elementwise part still applies
 * (ReduceSumSquare squares, ReduceLogSum takes the log), as ONNX specifies. ReduceMax/Min of an empty set is the
 * dtype's lowest/highest value; integer inputs of the float reductions (Mean, L2, LogSum, LogSumExp) reduce in float64
 * and truncate back to their dtype, since ONNX keeps the input's type (as do Sum and Prod's, which raf-op accumulates in
 * int64).
 */
const reduceForm =
  (r: Reduction): Form =>
  (ctx) => {
    const x = need(ctx, 0);
    const axesIn = ctx.opset >= r.axesInput;
    onlyAttrs(ctx, axesIn ? ['keepdims', 'noop_with_empty_axes'] : ['keepdims', 'axes']);
    const keepdims = num(ctx, 'keepdims', 1) !== 0;
    const noop = num(ctx, 'noop_with_empty_axes', 0) !== 0;
    const given = axesIn
      ? ctx.input(1)
        ? valuesOf(need(ctx, 1), `${ctx.node.opType}'s axes`)
        : []
      : ((ctx.attr('axes') as number[] | undefined) ?? []);
    const integer = isInteger(x.dtype) && r.float;
    // ONNX keeps the input's type; raf.op.sum and prod widen bool and narrow integers to int64 / uint64 as NumPy does
    // (promote.ts accumulateDtype), so those come back too (wrapping modulo 2^bits, as a fixed-width accumulator does).
    const back = (y: Tensor) => (y.dtype !== x.dtype ? cast(y, x.dtype) : y);
    if (!given.length && noop) return [back(r.none(integer ? cast(x, 'float64') : x))];
    const rank = x.shape.length;
    const axes = given.length ? given.map((a) => normalizeAxis(a, rank)) : [...Array(rank).keys()];
    if (new Set(axes).size !== axes.length) throw new Error(`axes [${given.join(', ')}] repeat an axis`);
    if (r.emptyValue && axes.some((a) => x.shape[a] === 0)) {
      const shape = x.shape.flatMap((d, i) => (axes.includes(i) ? (keepdims ? [1] : []) : [d]));
      const v = r.emptyValue(x.dtype);
      return [tensor(new Array<number>(sizeOf(shape)).fill(v), { dtype: x.dtype, shape })];
    }
    const y = invoke(getOp(r.op), [integer ? cast(x, 'float64') : x, axes, keepdims]) as Tensor;
    return [back(y)];
  };

/** ONNX's stash_type: only 1 (float32 statistics) is imported; Mean and InvStdDev are float32 then. */
function stashType(ctx: ImportContext): void {
  const stash = num(ctx, 'stash_type', 1);
  if (stash !== 1) throw new Error(`stash_type = ${stash} is not imported (only 1, float32 statistics)`);
}

/**
 * LayerNormalization (opset 17): Y through layer_norm (a missing B is zeros); the optional Mean and InvStdDev outputs,
 * when the node names them, as mean(x) and 1 / sqrt(var(x) + epsilon) over the normalized axes with those axes kept,
 * in float32 (stash_type 1).
 */
const layerNormForm: Form = (ctx) => {
  onlyAttrs(ctx, ['axis', 'epsilon', 'stash_type']);
  stashType(ctx);
  const [x, scale] = [need(ctx, 0), need(ctx, 1)];
  const bias = ctx.input(2) ?? zeros(scale.shape, scale.dtype);
  const axis = normalizeAxis(num(ctx, 'axis', -1), x.shape.length);
  const epsilon = num(ctx, 'epsilon', 1e-5);
  const y = layerNorm(x, scale, bias, axis, epsilon);
  const [, meanOut, invOut] = ctx.node.outputs;
  if (!meanOut && !invOut) return [y];
  const axes = Array.from({ length: x.shape.length - axis }, (_, i) => axis + i);
  // float16 statistics are computed in float32, as stash_type 1 says.
  const xs = x.dtype === 'float16' ? cast(x, 'float32') : x;
  const mu = mean(xs, axes, true);
  const centered = subtract(xs, mu);
  const inv = rsqrt(add(mean(multiply(centered, centered), axes, true), epsilon));
  // Mean and InvStdDev are float32 (stash_type 1), or float64 when the model imports in float64.
  const stash = importedDType('float32');
  const f32 = (t: Tensor) => (t.dtype === stash ? t : cast(t, stash));
  return [y, f32(mu), f32(inv)];
};

/**
 * GroupNormalization: opset 21's scale and bias are per channel (C), group_norm's own form; opset 18's are per group
 * (num_groups), each repeated over its group's channels first.
 */
const groupNormForm: Form = (ctx) => {
  onlyAttrs(ctx, ctx.opset >= 21 ? ['num_groups', 'epsilon', 'stash_type'] : ['num_groups', 'epsilon']);
  stashType(ctx);
  const x = need(ctx, 0);
  let [scale, bias] = [need(ctx, 1), need(ctx, 2)];
  const groups = ctx.attr('num_groups') as number | undefined;
  if (groups === undefined) throw new Error('GroupNormalization needs num_groups');
  if (ctx.opset < 21) {
    const c = x.shape[1] ?? 0;
    if (groups <= 0 || c % groups) throw new Error(`num_groups = ${groups} does not divide the ${c} channels`);
    const idx = tensor(
      Array.from({ length: c }, (_, k) => Math.floor(k / (c / groups))),
      { dtype: 'int64', shape: [c] },
    );
    [scale, bias] = [take(scale, idx, 0), take(bias, idx, 0)];
  }
  return [groupNorm(x, scale, bias, groups, num(ctx, 'epsilon', 1e-5))];
};

/**
 * LpNormalization: x / ‖x‖ₚ along axis (p 1 or 2). A zero vector stays zero, as onnxruntime gives (ONNX's reference
 * would divide 0 by 0).
 */
const lpNormForm: Form = (ctx) => {
  onlyAttrs(ctx, ['axis', 'p']);
  const x = need(ctx, 0);
  const p = num(ctx, 'p', 2);
  if (p !== 1 && p !== 2) throw new Error(`LpNormalization with p = ${p} is not imported (p is 1 or 2)`);
  const axis = normalizeAxis(num(ctx, 'axis', -1), x.shape.length);
  const norm = (p === 1 ? reduceL1 : reduceL2)(x, [axis], true);
  return [divide(x, where(equal(norm, 0), 1, norm))];
};

/** MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over axes (default [0, 2, 3]), ONNX's function. */
const mvnForm: Form = (ctx) => {
  onlyAttrs(ctx, ['axes']);
  const x = need(ctx, 0);
  const axes = ((ctx.attr('axes') as number[] | undefined) ?? [0, 2, 3]).map((a) => normalizeAxis(a, x.shape.length));
  const centered = subtract(x, mean(x, axes, true));
  const std = sqrt(mean(multiply(centered, centered), axes, true));
  return [divide(centered, add(std, 1e-9))];
};

/** 3-D (batch, seq, heads · size) as 4-D (batch, heads, seq, size). */
const heads4d = (t: Tensor, heads: number, what: string): Tensor => {
  const [b, seq, hidden] = t.shape as [number, number, number];
  if (!heads || hidden % heads) throw new Error(`${what}'s hidden size ${hidden} is not a multiple of ${heads} heads`);
  return transpose(reshape(t, [b, seq, heads, hidden / heads]), [0, 2, 1, 3]);
};

/**
 * Attention (opsets 23 and 24) through raf.op.attention: 3-D Q/K/V split into heads by q_num_heads/kv_num_heads (and
 * Y merged back); past_key/past_value joined before K/V along the sequence (present_key/present_value), the causal
 * frontier then offset by the past's length. Refused: softmax in another precision than the inputs' (computing it
 * more precisely would not be what the model asks), opset 25's sliding windows, and the qk_matmul_output output.
 */
const attentionForm: Form = (ctx) => {
  onlyAttrs(ctx, [
    'is_causal',
    'kv_num_heads',
    'q_num_heads',
    'qk_matmul_output_mode',
    'scale',
    'softcap',
    'softmax_precision',
    'left_window_size',
    'right_window_size',
  ]);
  for (const w of ['left_window_size', 'right_window_size'])
    if (num(ctx, w, -1) !== -1) throw new Error(`Attention with ${w} = ${num(ctx, w, -1)} is not imported`);
  let [q, k, v] = [need(ctx, 0), need(ctx, 1), need(ctx, 2)];
  const precision = ctx.attr('softmax_precision') as number | undefined;
  const ownPrecision = { float32: 1, float16: 10, float64: 11 }[q.dtype as string];
  if (precision !== undefined && precision !== ownPrecision && !(precision === 1 && q.dtype === 'float16'))
    throw new Error(`Attention with softmax_precision = ${precision} on ${q.dtype} inputs is not imported`);
  const [mask, pastK, pastV, lens] = [ctx.input(3), ctx.input(4), ctx.input(5), ctx.input(6)];
  if (!pastK !== !pastV) throw new Error('past_key and past_value must be given together');
  const rank = q.shape.length;
  if (rank !== 3 && rank !== 4) throw new Error(`Attention takes 3-D or 4-D Q, got ${q.shape.length}-D`);
  if (k.shape.length !== rank || v.shape.length !== rank) throw new Error('Q, K and V must have the same rank');
  if (rank === 3) {
    const [hq, hkv] = [num(ctx, 'q_num_heads', 0), num(ctx, 'kv_num_heads', 0)];
    [q, k, v] = [heads4d(q, hq, 'Q'), heads4d(k, hkv, 'K'), heads4d(v, hkv, 'V')];
  }
  if (pastK && pastV) [k, v] = [concatenate([pastK, k], 2), concatenate([pastV, v], 2)];
  const scale = ctx.attr('scale') as number | undefined;
  const qk = ctx.node.outputs[3] ? qkOutput(ctx, q, k, mask, pastK, lens, scale) : undefined;
  let y = attention(
    q,
    k,
    v,
    mask ?? null,
    lens ?? null,
    scale ?? null,
    num(ctx, 'is_causal', 0) !== 0,
    num(ctx, 'softcap', 0),
    pastK ? pastK.shape[2]! : 0,
  );
  if (rank === 3) {
    const [b, h, seq, dv] = y.shape as [number, number, number, number];
    y = reshape(transpose(y, [0, 2, 1, 3]), [b, seq, h * dv]);
  }
  return qk ? [y, k, v, qk] : [y, k, v];
};

/**
 * Attention's optional qk_matmul_output, composed as ONNX's reference computes it: (Q·√scale)(K·√scale)ᵀ with K's heads
 * repeated for grouped queries, soft-capped (modes 0 and 1), plus the mask, causal and padding bias (mode 2), or the
 * softmax with fully masked rows zeroed (mode 3). The padding lengths must be known at import.
 */
function qkOutput(
  ctx: ImportContext,
  q: Tensor,
  k: Tensor,
  mask: Tensor | undefined,
  pastK: Tensor | undefined,
  lens: Tensor | undefined,
  scale: number | undefined,
): Tensor {
  const mode = num(ctx, 'qk_matmul_output_mode', 0);
  if (mode < 0 || mode > 3) throw new Error(`qk_matmul_output_mode = ${mode} is not one of 0, 1, 2, 3`);
  const [B, Hq, Sq, D] = q.shape as [number, number, number, number];
  const [Hkv, Skv] = [k.shape[1]!, k.shape[2]!];
  if (!Hkv || Hq % Hkv) throw new Error(`Q's ${Hq} heads are not a multiple of K's ${Hkv}`);
  const idx = tensor(
    Array.from({ length: Hq }, (_, h) => Math.floor(h / (Hq / Hkv))),
    { dtype: 'int64', shape: [Hq] },
  );
  const root = Math.sqrt(scale ?? 1 / Math.sqrt(D));
  let raw = matmul(multiply(q, root), transpose(multiply(take(k, idx, 1), root), [0, 1, 3, 2]));
  const softcap = num(ctx, 'softcap', 0);
  if (softcap > 0) raw = multiply(tanh(divide(raw, softcap)), softcap);
  if (mode < 2) return raw;
  const dtype = q.dtype;
  const fill = (shape: number[], f: (i: number) => number) =>
    tensor(
      Array.from({ length: sizeOf(shape) }, (_, i) => f(i)),
      { dtype, shape },
    );
  let bias: Tensor = fill([Sq, Skv], () => 0);
  if (mask) {
    let m =
      mask.dtype === 'bool'
        ? where(
            mask,
            0,
            fill([], () => -Infinity),
          )
        : mask;
    const short = Skv - m.shape[m.shape.length - 1]!;
    if (short > 0) m = concatenate([m, fill([...m.shape.slice(0, -1), short], () => -Infinity)], -1);
    bias = add(bias, m);
  }
  const lengths = lens ? valuesOf(lens, "Attention's nonpad_kv_seqlen (for qk_matmul_output)") : null;
  if (num(ctx, 'is_causal', 0)) {
    const offsets = lengths ? lengths.map((l) => l - Sq) : [pastK ? pastK.shape[2]! : 0];
    const nb = offsets.length;
    const causal = fill([nb, 1, Sq, Skv], (n) => {
      const [b, i, j] = [Math.floor(n / (Sq * Skv)), Math.floor(n / Skv) % Sq, n % Skv];
      return j <= i + offsets[b]! ? 0 : -Infinity;
    });
    bias = add(bias, nb === 1 ? reshape(causal, [Sq, Skv]) : causal);
  }
  if (lengths)
    bias = add(
      bias,
      fill([B, 1, 1, Skv], (n) => (n % Skv < lengths[Math.floor(n / Skv)]! ? 0 : -Infinity)),
    );
  const scores = add(raw, bias);
  if (mode === 2) return scores;
  const masked = equal(max(bias, [-1], true), -Infinity);
  return where(masked, 0, softmax(where(masked, 0, scores), -1));
}

export const NORM_FORMS: Readonly<Record<string, Form>> = {
  ...Object.fromEntries(Object.entries(REDUCTIONS).map(([k, r]) => [k, reduceForm(r)])),
  LayerNormalization: layerNormForm,
  GroupNormalization: groupNormForm,
  LpNormalization: lpNormForm,
  MeanVarianceNormalization: mvnForm,
  Attention: attentionForm,
};
