// Importer forms for single ONNX ops that compose from raf-op's ops (merged into IMPORTER_FORMS in forms.ts): the
// window functions and MelWeightMatrix (values of known sizes, computed at import), MatMul with 1-D operands (NumPy's
// promotion), Pow with an exponent of another dtype, Split into num_outputs uneven chunks, Gelu's tanh approximation,
// BatchNormalization in training mode, and TensorScatter. Each leaves the node to the generated mapping (returns null)
// where that mapping already computes it, and refuses, naming the attribute, what it does not compute.

import { isFloat, isInteger, type DType } from '../../dtype.ts';
import { add } from '../../generated/api/add.ts';
import { cast } from '../../generated/api/cast.ts';
import { floorMod } from '../../generated/api/floor_mod.ts';
import { mean } from '../../generated/api/mean.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { power } from '../../generated/api/power.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { scatterElements } from '../../generated/api/scatter_elements.ts';
import { split } from '../../generated/api/split.ts';
import { squeeze } from '../../generated/api/squeeze.ts';
import { take } from '../../generated/api/take.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { convTransposeGeometry } from '../../ops/conv_transpose.rule.ts';
import { subtract } from '../../generated/api/subtract.ts';
import { tanh } from '../../generated/api/tanh.ts';
import { exp } from '../../generated/api/exp.ts';
import { less } from '../../generated/api/less.ts';
import { where } from '../../generated/api/where.ts';
import { sigmoid } from '../../generated/api/sigmoid.ts';
import { matmul } from '../../generated/api/matmul.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { normalizeAxis } from '../../shape.ts';
import { tensor, zeros, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';
import { onnxDType, valuesOf } from './values.ts';
import { bitcast } from '../../generated/api/bitcast.ts';
import { formatOf } from './narrow.ts';
import { narrowFormatOf } from './proto.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const str = (ctx: ImportContext, name: string, dflt: string): string => (ctx.attr(name) as string | undefined) ?? dflt;
/** The single value of a scalar (or one-element) input, which must be known at import. */
const scalar = (ctx: ImportContext, i: number, what: string): number => {
  const v = valuesOf(need(ctx, i), `${ctx.node.opType}'s ${what}`);
  if (v.length !== 1) throw new Error(`${ctx.node.opType}'s ${what} must be a scalar, got ${v.length} values`);
  return v[0]!;
};

/** The output dtype an `output_datatype` attribute names; the window ops and MelWeightMatrix make floats or ints. */
function outputDType(ctx: ImportContext): DType {
  const d = onnxDType(num(ctx, 'output_datatype', 1));
  if (d === 'bool') throw new Error(`output_datatype bool of ${ctx.node.opType} is not imported`);
  return d;
}

/**
 * A window of `size` samples as ONNX's reference computes it: n = 0..size-1 in the output dtype, N = size (periodic)
 * or size - 1 (symmetric), the formula evaluated in that dtype (float32 rounding at each step where it is float32).
 */
const windowForm =
  (formula: (cos: (k: number) => number, r: (v: number) => number) => number): Form =>
  (ctx) => {
    const size = scalar(ctx, 0, 'size');
    if (!Number.isInteger(size) || size < 0) throw new Error(`${ctx.node.opType}'s size ${size} is not a count`);
    const periodic = num(ctx, 'periodic', 1);
    if (periodic !== 0 && periodic !== 1) throw new Error(`periodic = ${periodic} is not 0 or 1`);
    const dtype = outputDType(ctx);
    const r = dtype === 'float32' || dtype === 'float16' || dtype === 'bfloat16' ? Math.fround : (v: number) => v;
    const N = periodic ? size : size - 1;
    const values = Array.from({ length: size }, (_, n) => formula((k) => r(Math.cos(r(r(r(k * Math.PI) * n) / N))), r));
    return [tensor(values, { dtype: isFloat(dtype) ? dtype : 'float64', shape: [size] })].map((t) =>
      t.dtype === dtype ? t : cast(t, dtype),
    );
  };

const hann = windowForm((cos, r) => r(0.5 - r(0.5 * cos(2))));
const hamming = windowForm((cos, r) => r(r(25 / 46) - r(r(1 - 25 / 46) * cos(2))));
const blackman = windowForm((cos, r) => r(r(r(0.42) + r(-0.5 * cos(2))) + r(r(0.08) * cos(4))));

/**
 * MelWeightMatrix [dft_length / 2 + 1, num_mel_bins]: triangular filters between mel-spaced bin edges, as ONNX's
 * reference computes them (the edges in float32 mel, then float64, floored to bins).
 */
const melWeightMatrix: Form = (ctx) => {
  const f = Math.fround;
  const bins = scalar(ctx, 0, 'num_mel_bins');
  const dft = scalar(ctx, 1, 'dft_length');
  const rate = scalar(ctx, 2, 'sample_rate');
  const lo = scalar(ctx, 3, 'lower_edge_hertz');
  const hi = scalar(ctx, 4, 'upper_edge_hertz');
  if (!(bins > 0) || !(dft > 0) || !(rate > 0)) throw new Error('MelWeightMatrix needs positive bins, length and rate');
  const float32 = need(ctx, 3).dtype === 'float32';
  const r = float32 ? f : (v: number) => v;
  const mel = (hz: number) => r(2595 * r(Math.log10(r(1 + r(hz / 700)))));
  const [lowMel, highMel] = [mel(lo), mel(hi)];
  const step = r(highMel - lowMel) / (bins + 2);
  const edges = Array.from({ length: bins + 2 }, (_, i) => {
    const hz = 700 * (10 ** ((i * step + lowMel) / 2595) - 1);
    return Math.trunc(Math.floor(((dft + 1) * hz) / rate));
  });
  const spec = Math.floor(dft / 2) + 1;
  const out = new Array<number>(spec * bins).fill(0);
  const set = (j: number, i: number, v: number) => {
    if (j < 0 || j >= spec) throw new Error(`MelWeightMatrix's filter ${i} reaches bin ${j}, outside 0..${spec - 1}`);
    out[j * bins + i] = v;
  };
  for (let i = 0; i < bins; i++) {
    const [left, center, right] = [edges[i]!, edges[i + 1]!, edges[i + 2]!];
    if (center === left) set(center, i, 1);
    else for (let j = left; j <= center; j++) set(j, i, (j - left) / (center - left));
    if (right > center) for (let j = center; j < right; j++) set(j, i, (right - j) / (right - center));
  }
  const dtype = outputDType(ctx);
  const t = tensor(out, { dtype: 'float64', shape: [spec, bins] });
  return [dtype === 'float64' ? t : cast(t, dtype)];
};

/** MatMul with a 1-D operand (NumPy): a vector a is a row [1, K], a vector b a column [K, 1], the added axis dropped. */
const matmulForm: Form = (ctx) => {
  const [a, b] = [need(ctx, 0), need(ctx, 1)];
  const [va, vb] = [a.shape.length === 1, b.shape.length === 1];
  if (!va && !vb) return null;
  if (!a.shape.length || !b.shape.length) throw new Error('MatMul of a scalar is not defined');
  const a2 = va ? reshape(a, [1, a.shape[0]!]) : a;
  const b2 = vb ? reshape(b, [b.shape[0]!, 1]) : b;
  const y = ctx.mapped('MatMul', [a2, b2], [])[0]!;
  const r = y.shape.length;
  const drop = [...(va ? [r - 2] : []), ...(vb ? [r - 1] : [])];
  return [squeeze(y, drop)];
};

/**
 * Pow whose exponent has another dtype than the base (ONNX from opset 12): the result has the base's dtype. A float
 * base takes the exponent cast to it; an integer base is raised in float64 (as C's pow of mixed types) and the result
 * truncated back to the base's integer dtype.
 */
const powForm: Form = (ctx) => {
  const [a, b] = [need(ctx, 0), need(ctx, 1)];
  if (a.dtype === b.dtype) return null;
  if (isFloat(a.dtype) && (isFloat(b.dtype) || isInteger(b.dtype))) return [power(a, cast(b, a.dtype))];
  if (isInteger(a.dtype) && (isFloat(b.dtype) || isInteger(b.dtype)))
    return [cast(power(cast(a, 'float64'), cast(b, 'float64')), a.dtype)];
  throw new Error(`Pow of ${a.dtype} to a ${b.dtype} power is not imported`);
};

/**
 * Split (opset 18) into num_outputs chunks when they do not divide the axis: ceil-sized chunks, the last one smaller
 * (ONNX's reference). Even ones and explicit sizes go through split's mapping.
 */
const splitForm: Form = (ctx) => {
  const n = ctx.attr('num_outputs') as number | undefined;
  const sizes = ctx.input(1);
  if (ctx.opset < 18 || n === undefined || (sizes && sizes.size)) return null;
  const x = need(ctx, 0);
  const axis = normalizeAxis(num(ctx, 'axis', 0), x.shape.length);
  const len = x.shape[axis]!;
  if (n < 1) throw new Error(`Split's num_outputs ${n} is not positive`);
  if (n !== ctx.node.outputs.length)
    throw new Error(`Split's num_outputs ${n} differs from its ${ctx.node.outputs.length} outputs`);
  if (len % n === 0) return null;
  const chunk = Math.floor(len / n) + 1;
  if (len - chunk * (n - 1) < 0)
    throw new Error(`Split of an axis of ${len} into ${n} outputs of ${chunk} leaves the last one a negative size`);
  return split(
    x,
    Array.from({ length: n - 1 }, (_, i) => (i + 1) * chunk),
    axis,
  );
};

/** Gelu with approximate = 'tanh': 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); 'none' is gelu's mapping. */
const geluForm: Form = (ctx) => {
  const mode = str(ctx, 'approximate', 'none');
  if (mode === 'none') return null;
  if (mode !== 'tanh') throw new Error(`Gelu approximate = '${mode}' is not imported (none and tanh are)`);
  const x = need(ctx, 0);
  if (!isFloat(x.dtype)) throw new Error(`Gelu of ${x.dtype} is not defined (float only)`);
  const inner = multiply(add(x, multiply(multiply(multiply(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
  return [multiply(multiply(x, 0.5), add(tanh(inner), 1))];
};

/**
 * BatchNormalization with training_mode = 1 (opset 14 on): normalizes with the batch's mean and population variance
 * over every axis but 1, and gives the running statistics input * momentum + batch * (1 - momentum) as outputs 1 and
 * 2, as ONNX's reference does. Inference mode is batch_norm's mapping.
 */
const batchNormForm: Form = (ctx) => {
  if (ctx.opset < 14 || !num(ctx, 'training_mode', 0)) return null;
  const [x, scale, bias, runMean, runVar] = [0, 1, 2, 3, 4].map((i) => need(ctx, i)) as [
    Tensor,
    Tensor,
    Tensor,
    Tensor,
    Tensor,
  ];
  if (ctx.node.outputs.length > 3)
    throw new Error('BatchNormalization training mode with more than 3 outputs is not imported');
  if (x.shape.length < 2) throw new Error(`BatchNormalization needs x of rank >= 2, got [${x.shape.join(', ')}]`);
  const momentum = num(ctx, 'momentum', 0.9);
  const epsilon = num(ctx, 'epsilon', 1e-5);
  const axes = x.shape.map((_, i) => i).filter((i) => i !== 1);
  const m = mean(x, axes, true);
  const d = subtract(x, m);
  const v = mean(multiply(d, d), axes, true);
  const [batchMean, batchVar] = [reshape(m, [x.shape[1]!]), reshape(v, [x.shape[1]!])];
  const y = ctx.mapped(
    'BatchNormalization',
    [x, scale, bias, batchMean, batchVar],
    [{ name: 'epsilon', value: epsilon }],
  )[0]!;
  const blend = (run: Tensor, batch: Tensor) =>
    add(multiply(run, momentum), multiply(cast(batch, run.dtype), 1 - momentum));
  return [y, blend(runMean, batchMean), blend(runVar, batchVar)].slice(0, Math.max(1, ctx.node.outputs.length));
};

/**
 * TensorScatter (opset 24): update [batch, ..., seq, ...] written into past_cache along axis (not 0) starting at
 * write_indices[b] (0 when left out) for each batch entry b; mode 'circular' wraps positions modulo the cache's length
 * along axis. Positions past the cache in 'linear' mode are refused by scatter_elements.
 */
const tensorScatter: Form = (ctx) => {
  const [past, update] = [need(ctx, 0), need(ctx, 1)];
  const r = past.shape.length;
  const axis = normalizeAxis(num(ctx, 'axis', -2), r);
  if (axis === 0) throw new Error("TensorScatter's axis cannot be 0, the batch axis");
  const mode = str(ctx, 'mode', 'linear');
  if (mode !== 'linear' && mode !== 'circular')
    throw new Error(`TensorScatter mode '${mode}' is not imported (linear and circular are)`);
  if (update.shape.length !== r) throw new Error(`TensorScatter's update must have the rank ${r} of past_cache`);
  const batch = past.shape[0]!;
  const seq = update.shape[axis]!;
  const wi = ctx.input(2);
  const at = (len: number, k: number) => past.shape.map((_, i) => (i === k ? len : 1));
  const starts = wi ? reshape(cast(wi, 'int64'), at(batch, 0)) : zeros(at(batch, 0), 'int64');
  const steps = tensor(
    Array.from({ length: seq }, (_, i) => i),
    { dtype: 'int64', shape: at(seq, axis) },
  );
  let idx = add(starts, steps);
  if (mode === 'circular') idx = floorMod(idx, past.shape[axis]!);
  idx = add(idx, zeros(update.shape, 'int64'));
  return [scatterElements(past, idx, update, axis)];
};

/**
 * 3-D ConvTranspose as one 2-D conv_transpose (through ConvTranspose's mapping, the depth slices folded into the batch)
 * per kernel depth tap: input slice d feeds output depth d * stride + tap * dilation, so each tap's slices are
 * gathered to their output depths (a zero slice where none lands) and the taps add up. The depth axis's padding,
 * auto_pad, output_padding and output_shape resolve as conv_transpose resolves a 1-D axis; height and width go to the
 * 2-D op as they are. 1-D and 2-D are conv_transpose's mapping.
 */
const convTranspose3d: Form = (ctx) => {
  const x = need(ctx, 0);
  if (x.shape.length !== 5) return null;
  const [w, b] = [need(ctx, 1), ctx.input(2)];
  if (w.shape.length !== 5) throw new Error(`ConvTranspose 3-D needs a weight of rank 5, got [${w.shape.join(', ')}]`);
  const list = (name: string, n: number, fill: number) => {
    const v = ctx.attr(name) as number[] | undefined;
    if (v && v.length !== n) throw new Error(`ConvTranspose 3-D's ${name} needs ${n} values, got ${v.length}`);
    return v ?? new Array<number>(n).fill(fill);
  };
  const kernel = w.shape.slice(2);
  const ks = ctx.attr('kernel_shape') as number[] | undefined;
  if (ks && ks.some((k, i) => k !== kernel[i]))
    throw new Error(`kernel_shape [${ks.join(', ')}] disagrees with the weight's [${kernel.join(', ')}]`);
  const [strides, dil, outPad] = [list('strides', 3, 1), list('dilations', 3, 1), list('output_padding', 3, 0)];
  const pads = list('pads', 6, 0);
  const autoPad = str(ctx, 'auto_pad', 'NOTSET');
  const rawShape = ctx.attr('output_shape') as number[] | undefined;
  const outShape = rawShape ? rawShape.slice(-3) : undefined;
  const group = num(ctx, 'group', 1);
  const [N, C, D, H, W] = x.shape as [number, number, number, number, number];
  const kD = kernel[0]!;
  // The depth axis alone, as conv_transpose resolves a 1-D one.
  const depth = convTransposeGeometry({
    x: { shape: [1, 1, D], dtype: x.dtype },
    w: { shape: [1, 1, kD], dtype: x.dtype },
    stride: [strides[0]!],
    padding: [pads[0]!, pads[3]!],
    output_padding: [outPad[0]!],
    dilation: [dil[0]!],
    groups: 1,
    auto_pad: autoPad,
    output_shape: outShape ? [outShape[0]!] : null,
  });
  const [begin, L] = [depth.padding[1]!, depth.out[2]!];
  const attrs2d = [
    { name: 'strides', value: strides.slice(1) },
    { name: 'dilations', value: dil.slice(1) },
    { name: 'output_padding', value: outPad.slice(1) },
    { name: 'pads', value: [pads[1]!, pads[2]!, pads[4]!, pads[5]!] },
    { name: 'group', value: group },
    { name: 'auto_pad', value: autoPad },
    ...(outShape ? [{ name: 'output_shape', value: outShape.slice(1) }] : []),
  ];
  const slices = reshape(transpose(x, [0, 2, 1, 3, 4]), [N * D, C, H, W]);
  let sum: Tensor | null = null;
  for (let k = 0; k < kD; k++) {
    const wk = squeeze(take(w, tensor([k], { dtype: 'int64' }), 2), [2]);
    const yk = ctx.mapped('ConvTranspose', [slices, wk], attrs2d)[0]!;
    const [O, Ho, Wo] = [yk.shape[1]!, yk.shape[2]!, yk.shape[3]!];
    const y5 = concatenate([reshape(yk, [N, D, O, Ho, Wo]), zeros([N, 1, O, Ho, Wo], yk.dtype)], 1);
    const idx = Array.from({ length: L }, (_, t) => {
      const q = t + begin - k * dil[0]!;
      return q >= 0 && q % strides[0]! === 0 && q / strides[0]! < D ? q / strides[0]! : D;
    });
    const placed = take(y5, tensor(idx, { dtype: 'int64' }), 1);
    sum = sum ? add(sum, placed) : placed;
  }
  let out = transpose(sum!, [0, 2, 1, 3, 4]);
  if (b) out = add(out, reshape(b, [b.shape[0]!, 1, 1, 1]));
  return [out];
};

/**
 * LSTM with peepholes P [directions, 3 * hidden] (gates i, o, f), which the lstm op does not take: unrolled over time
 * from matmul, sigmoid and tanh with ONNX's equations (the default activations; forms.ts refuses other attributes
 * first). it = σ(Xt Wiᵀ + Ht-1 Riᵀ + Pi ⊙ Ct-1 + Wbi + Rbi), ft likewise with Pf, ct = tanh(...), Ct = ft ⊙ Ct-1 +
 * it ⊙ ct, ot = σ(... + Po ⊙ Ct), Ht = ot ⊙ tanh(Ct); sequence_lens masks the steps past each entry's length. Gives
 * Y [T, directions, batch, hidden], Y_h and Y_c.
 */
export function lstmWithPeepholes(
  ctx: ImportContext,
  direction: string,
  hidden: number,
  seqLens: Tensor | undefined,
  seqFirst: { x: Tensor; h0: Tensor | undefined; c0: Tensor | undefined },
): Tensor[] {
  const [x, W, R] = [seqFirst.x, need(ctx, 1), need(ctx, 2)];
  if (direction !== 'forward' && direction !== 'reverse' && direction !== 'bidirectional')
    throw new Error(`LSTM direction '${direction}' is not one of forward, reverse, bidirectional`);
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const [T, B] = [x.shape[0]!, x.shape[1]!];
  const Hs = hidden;
  const expect = (t: Tensor | undefined, name: string, shape: number[]) => {
    if (t && (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])))
      throw new Error(`LSTM's ${name} must have shape [${shape.join(', ')}], got [${t.shape.join(', ')}]`);
  };
  const [bias, h0, c0, P] = [ctx.input(3), seqFirst.h0, seqFirst.c0, need(ctx, 7)];
  expect(W, 'W', [dirs, 4 * Hs, x.shape[2]!]);
  expect(R, 'R', [dirs, 4 * Hs, Hs]);
  expect(bias, 'B', [dirs, 8 * Hs]);
  expect(h0, 'initial_h', [dirs, B, Hs]);
  expect(c0, 'initial_c', [dirs, B, Hs]);
  expect(P, 'P', [dirs, 3 * Hs]);
  const pick = (t: Tensor, i: number, axis = 0) => squeeze(take(t, tensor([i], { dtype: 'int64' }), axis), [axis]);
  expect(seqLens, 'sequence_lens', [B]);
  // Steps at or past an entry's length keep its state and output zeros (reverse ones start at its last step).
  const lens = seqLens ? reshape(cast(seqLens, 'int64'), [B, 1]) : null;
  const ys: Tensor[] = [];
  const hs: Tensor[] = [];
  const cs: Tensor[] = [];
  for (let d = 0; d < dirs; d++) {
    const Wt = transpose(pick(W, d), [1, 0]);
    const Rt = transpose(pick(R, d), [1, 0]);
    const b = bias ? split(pick(bias, d), 2, 0).reduce((p, q) => add(p, q)) : null;
    const [pi, po, pf] = split(pick(P, d), 3, 0) as [Tensor, Tensor, Tensor];
    let h = h0 ? pick(h0, d) : zeros([B, Hs], x.dtype);
    let c = c0 ? pick(c0, d) : zeros([B, Hs], x.dtype);
    const out = new Array<Tensor>(T);
    const reverse = direction === 'reverse' || d === 1;
    for (let s = 0; s < T; s++) {
      const t = reverse ? T - 1 - s : s;
      let g = add(matmul(pick(x, t), Wt), matmul(h, Rt));
      if (b) g = add(g, b);
      const [gi, go, gf, gc] = split(g, 4, 1) as [Tensor, Tensor, Tensor, Tensor];
      const it = sigmoid(add(gi, multiply(pi, c)));
      const ft = sigmoid(add(gf, multiply(pf, c)));
      const cNew = add(multiply(ft, c), multiply(it, tanh(gc)));
      const ot = sigmoid(add(go, multiply(po, cNew)));
      const hNew = multiply(ot, tanh(cNew));
      if (lens) {
        const live = less(tensor([t], { dtype: 'int64', shape: [1, 1] }), lens);
        [h, c] = [where(live, hNew, h), where(live, cNew, c)];
        out[t] = expandDims(where(live, hNew, zeros([B, Hs], x.dtype)), 0);
      } else {
        [h, c] = [hNew, cNew];
        out[t] = expandDims(h, 0);
      }
    }
    ys.push(expandDims(concatenate(out, 0), 1));
    hs.push(expandDims(h, 0));
    cs.push(expandDims(c, 0));
  }
  return [concatenate(ys, 1), concatenate(hs, 0), concatenate(cs, 0)];
}

/** DeformConv: a kernel_shape attribute must agree with the weight's; the rest is deform_conv's mapping. */
const deformConvForm: Form = (ctx) => {
  const kernel = need(ctx, 1).shape.slice(2);
  const ks = ctx.attr('kernel_shape') as number[] | undefined;
  if (ks && (ks.length !== kernel.length || ks.some((k, i) => k !== kernel[i])))
    throw new Error(`kernel_shape [${ks.join(', ')}] disagrees with the weight's [${kernel.join(', ')}]`);
  return null;
};

/**
 * CausalConvWithState (opset 27): a depthwise causal 1-D convolution over (batch, channels, length) that carries its
 * last kernel - 1 inputs between calls: past_state (zeros when absent) goes before the input, the Conv (group =
 * channels, weight (channels, 1, kernel)) reads them, bias and activation ('silu' or its alias 'swish') follow, and
 * present_state is the last kernel - 1 steps of state and input together.
 */
const causalConvWithState: Form = (ctx) => {
  const x = need(ctx, 0);
  const w = need(ctx, 1);
  if (x.shape.length !== 3)
    throw new Error(`CausalConvWithState of a rank-${x.shape.length} input is not imported (3)`);
  const [B, C] = [x.shape[0]!, x.shape[1]!];
  const K = w.shape[2]!;
  if (w.shape.length !== 3 || w.shape[0] !== C || w.shape[1] !== 1)
    throw new Error(`CausalConvWithState's weight must be (${C}, 1, kernel), got [${w.shape.join(', ')}]`);
  const activation = str(ctx, 'activation', 'none');
  if (activation !== 'none' && activation !== 'silu' && activation !== 'swish')
    throw new Error(`CausalConvWithState activation '${activation}' is not imported (none, silu, swish)`);
  const past = ctx.input(3);
  const padded = K > 1 ? concatenate([past ?? zeros([B, C, K - 1], x.dtype), x], 2) : x;
  const attrs = [
    { name: 'strides', value: [1, 1] },
    { name: 'dilations', value: [1, 1] },
    { name: 'pads', value: [0, 0, 0, 0] },
    { name: 'group', value: C },
  ];
  let y = squeeze(ctx.mapped('Conv', [expandDims(padded, 2), expandDims(w, 2)], attrs)[0]!, [2]);
  const bias = ctx.input(2);
  if (bias) y = add(y, reshape(bias, [C, 1]));
  if (activation !== 'none') y = multiply(y, sigmoid(y));
  const present = K > 1 ? split(padded, [padded.shape[2]! - (K - 1)], 2)[1]! : zeros([B, C, 0], x.dtype);
  return [y, present];
};

/**
 * The DFT of the last axis of (xr, xi) (xi null: a real signal) by matrix products with constant cos and sin tables:
 * `bins` outputs of X_k = Σ_n x_n e^(∓2πikn/L) over n < L (the sign + when inverse, which also divides by L).
 */
function dftLast(ctx: ImportContext, xr: Tensor, xi: Tensor | null, bins: number, inverse: boolean): [Tensor, Tensor] {
  const L = xr.shape.at(-1)!;
  const table = (f: (angle: number) => number) => {
    const data = new Float64Array(L * bins);
    for (let n = 0; n < L; n++)
      for (let k = 0; k < bins; k++) data[n * bins + k] = f((2 * Math.PI * ((k * n) % L)) / L);
    return tensor(data, { dtype: xr.dtype, shape: [L, bins] });
  };
  const product = (a: Tensor, m: Tensor) => ctx.mapped('MatMul', [a, m], [])[0]!;
  const [cos, sin] = [table(Math.cos), table((a) => (inverse ? Math.sin(a) : -Math.sin(a)))];
  // (xr + i xi)(cos + i sin) = (xr cos - xi sin) + i (xr sin + xi cos)
  let re = product(xr, cos);
  let im = product(xr, sin);
  if (xi) [re, im] = [subtract(re, product(xi, sin)), add(im, product(xi, cos))];
  return inverse ? [multiply(re, 1 / L), multiply(im, 1 / L)] : [re, im];
}

/** Moves axis `a` of x to the end (and back with `back`). */
const toLast = (x: Tensor, a: number) => {
  const r = x.shape.length;
  return a === r - 1 ? x : transpose(x, [...Array.from({ length: r }, (_, i) => i).filter((i) => i !== a), a]);
};
const fromLast = (x: Tensor, a: number) => {
  const r = x.shape.length;
  if (a === r - 1) return x;
  const perm = Array.from({ length: r - 1 }, (_, i) => i);
  perm.splice(a, 0, r - 1);
  return transpose(x, perm);
};

/**
 * DFT (opsets 17 and 20): input (..., n, 1 or 2), the complex axis last; the transform along `axis` (an attribute
 * before opset 20, an input from it, default -2), zero-padded or cut to dft_length; onesided keeps the first
 * length / 2 + 1 bins of a real signal's transform, and with inverse reads such a half spectrum (the other half by
 * Hermitian symmetry) and gives a real signal. Computed as matrix products with cos and sin tables.
 */
const dftForm: Form = (ctx) => {
  const x = need(ctx, 0);
  if (!isFloat(x.dtype)) throw new Error(`DFT of ${x.dtype} is not defined (float only)`);
  const r = x.shape.length;
  const c = x.shape[r - 1]!;
  if (c !== 1 && c !== 2) throw new Error(`DFT's input must end in a complex axis of 1 or 2, got ${c}`);
  const rawAxis = ctx.opset >= 20 ? (ctx.input(2) ? scalar(ctx, 2, 'axis') : -2) : num(ctx, 'axis', 1);
  const axis = normalizeAxis(rawAxis, r);
  if (axis === r - 1) throw new Error("DFT's axis cannot be the complex axis (the last)");
  const inverse = num(ctx, 'inverse', 0) === 1;
  const onesided = num(ctx, 'onesided', 0) === 1;
  // In float64, as ONNX's reference computes it: the tables' rounding would otherwise show in near-zero outputs.
  const wide = x.dtype === 'float64' ? x : cast(x, 'float64');
  const parts = c === 2 ? split(wide, 2, r - 1) : [wide];
  let [xr, xi] = parts.map((p) => toLast(squeeze(p, [r - 1]), axis)) as [Tensor, Tensor | undefined];
  const n = xr.shape.at(-1)!;
  const length = ctx.input(1) ? scalar(ctx, 1, 'dft_length') : inverse && onesided ? 2 * (n - 1) : n;
  if (length < 1) throw new Error(`DFT's dft_length ${length} is not positive`);
  let re: Tensor;
  let im: Tensor | null;
  if (inverse && onesided) {
    // A half spectrum (bins 0..n-1) to a real signal of `length`: bin k ≥ n is conj(bin length - k).
    const coef = (f: (k: number, t: number) => number) => {
      const data = new Float64Array(n * length);
      for (let k = 0; k < length; k++) {
        const j = k < n ? k : length - k;
        if (j >= n || j < 0) continue;
        for (let t = 0; t < length; t++) data[j * length + t] += f(k, t);
      }
      return tensor(data, { dtype: xr.dtype, shape: [n, length] });
    };
    const angle = (k: number, t: number) => (2 * Math.PI * ((k * t) % length)) / length;
    const cr = coef((k, t) => Math.cos(angle(k, t)) / length);
    const ci = coef((k, t) => (k < n ? -Math.sin(angle(k, t)) : Math.sin(angle(k, t))) / length);
    re = ctx.mapped('MatMul', [xr, cr], [])[0]!;
    if (xi) re = add(re, ctx.mapped('MatMul', [xi, ci], [])[0]!);
    im = null;
  } else {
    const fit = (t: Tensor | undefined) => {
      if (!t || length === n) return t ?? null;
      if (length < n) return split(t, [length], t.shape.length - 1)[0]!;
      return concatenate([t, zeros([...t.shape.slice(0, -1), length - n], t.dtype)], t.shape.length - 1);
    };
    [re, im] = dftLast(ctx, fit(xr)!, fit(xi), onesided ? Math.floor(length / 2) + 1 : length, inverse);
  }
  const back = (t: Tensor) => expandDims(fromLast(x.dtype === 'float64' ? t : cast(t, x.dtype), axis), r - 1);
  return [im ? concatenate([back(re), back(im)], r - 1) : back(re)];
};

/**
 * STFT (opset 17): signal (batch, length, 1 or 2) cut into frames of frame_length (the window's length when not given)
 * every frame_step samples, each multiplied by the window (ones when absent) and transformed; onesided (the default)
 * keeps frame_length / 2 + 1 bins. Output (batch, frames, bins, 2).
 */
const stftForm: Form = (ctx) => {
  const x = need(ctx, 0);
  if (x.shape.length !== 3)
    throw new Error(`STFT's signal must be (batch, length, 1 or 2), got rank ${x.shape.length}`);
  const [B, N, c] = x.shape as [number, number, number];
  const step = scalar(ctx, 1, 'frame_step');
  const window = ctx.input(2);
  const frame = ctx.input(3) ? scalar(ctx, 3, 'frame_length') : window?.shape[0];
  if (!frame) throw new Error('STFT needs a frame_length or a window');
  if (window && window.shape[0] !== frame)
    throw new Error(`STFT's window has ${window.shape[0]} values; frame_length is ${frame}`);
  const frames = Math.floor((N - frame) / step) + 1;
  if (frames < 1) throw new Error(`STFT: a signal of ${N} samples holds no frame of ${frame}`);
  const onesided = num(ctx, 'onesided', 1) === 1;
  if (onesided && c === 2) throw new Error('STFT onesided = 1 takes a real signal');
  const index = tensor(
    Array.from({ length: frames * frame }, (_, i) => Math.floor(i / frame) * step + (i % frame)),
    { dtype: 'int64', shape: [frames, frame] },
  );
  const framed = (t: Tensor) => {
    const f = take(reshape(t, [B, N]), index, 1); // (B, frames, frame)
    return window ? multiply(f, window) : f;
  };
  const parts = c === 2 ? split(x, 2, 2) : [x];
  const [xr, xi] = parts.map(framed) as [Tensor, Tensor | undefined];
  const [re, im] = dftLast(ctx, xr, xi ?? null, onesided ? Math.floor(frame / 2) + 1 : frame, false);
  return [concatenate([expandDims(re, 3), expandDims(im, 3)], 3)];
};

/**
 * LinearAttention (opset 27): a recurrent state S (batch, kv heads, dk, dv) updated token by token (unrolled over the
 * sequence, which each signature fixes) by the update rule: 'linear' S + k ⊗ v, 'gated' exp(g)·S + k ⊗ v,
 * 'delta' S + k ⊗ β(v - Sᵀk), 'gated_delta' (the default) the delta rule on exp(g)·S; each token's output is
 * scale · qᵀS after its update (scale 1 / sqrt(dk) by default). Query heads share kv heads as in grouped-query
 * attention (or the reverse, one output per kv head); decay is per key dimension or per head, beta per head or shared.
 */
const linearAttention: Form = (ctx) => {
  const op = 'LinearAttention';
  const [q, k, v] = [need(ctx, 0), need(ctx, 1), need(ctx, 2)];
  const Hq = num(ctx, 'q_num_heads', 0);
  const Hkv = num(ctx, 'kv_num_heads', 0);
  if (!Hq || !Hkv) throw new Error(`${op} needs q_num_heads and kv_num_heads`);
  if (num(ctx, 'state_window', 0)) throw new Error(`${op} state_window > 0 is not imported`);
  const rule = str(ctx, 'update_rule', 'gated_delta');
  if (!['linear', 'gated', 'delta', 'gated_delta'].includes(rule))
    throw new Error(`${op} update_rule '${rule}' is not one of linear, gated, delta, gated_delta`);
  const [B, T] = [q.shape[0]!, q.shape[1]!];
  const dk = q.shape[2]! / Hq;
  const dv = v.shape[2]! / Hkv;
  if (Hq % Hkv !== 0 && Hkv % Hq !== 0) throw new Error(`${op}: ${Hq} query heads and ${Hkv} kv heads do not group`);
  const gated = rule === 'gated' || rule === 'gated_delta';
  const delta = rule === 'delta' || rule === 'gated_delta';
  const decay = ctx.input(4);
  const beta = ctx.input(5);
  if (gated && !decay) throw new Error(`${op} update_rule '${rule}' needs decay`);
  if (delta && !beta) throw new Error(`${op} update_rule '${rule}' needs beta`);
  const scale = num(ctx, 'scale', 0) || 1 / Math.sqrt(dk);
  const f32 = (t: Tensor) => (t.dtype === 'float32' || t.dtype === 'float64' ? t : cast(t, 'float32'));
  // (B, T, heads · d) as T tensors of (B, heads, d).
  const steps = (t: Tensor, heads: number) =>
    split(reshape(f32(t), [B, T, heads, t.shape[2]! / heads]), T, 1).map((s) => squeeze(s, [1]));
  const qs = steps(q, Hq);
  const ks = steps(k, Hkv);
  const vs = steps(v, Hkv);
  // decay per key dimension (B, T, Hkv · dk) or per head (B, T, Hkv); beta per head (B, T, Hkv) or shared (B, T, 1).
  const gs = decay ? steps(decay, decay.shape[2] === Hkv * dk ? Hkv : decay.shape[2]!) : [];
  const bs = beta ? steps(beta, beta.shape[2]!) : [];
  const past = ctx.input(3);
  let S = past ? f32(past) : zeros([B, Hkv, dk, dv], q.dtype === 'float64' ? 'float64' : 'float32');
  const group = (t: Tensor, from: number, to: number) =>
    from === to
      ? t
      : take(
          t,
          tensor(
            Array.from({ length: to }, (_, h) => Math.floor((h * from) / to)),
            { dtype: 'int64' },
          ),
          1,
        );
  const heads = Math.max(Hq, Hkv);
  const outs: Tensor[] = [];
  for (let t = 0; t < T; t++) {
    const kCol = expandDims(ks[t]!, 3); // (B, Hkv, dk, 1)
    if (gated) {
      const g = gs[t]!; // (B, Hkv, dk) or (B, Hkv, 1)
      S = multiply(S, expandDims(exp(g), 3));
    }
    let write = expandDims(vs[t]!, 2); // (B, Hkv, 1, dv)
    if (delta) {
      const retrieved = matmul(transpose(kCol, [0, 1, 3, 2]), S); // (B, Hkv, 1, dv)
      write = multiply(expandDims(bs[t]!, 3), subtract(write, retrieved));
    }
    S = add(S, matmul(kCol, write));
    const qRow = expandDims(group(qs[t]!, Hq, heads), 2); // (B, heads, 1, dk)
    outs.push(reshape(multiply(matmul(qRow, group(S, Hkv, heads)), scale), [B, 1, heads * dv]));
  }
  const y = outs.length === 1 ? outs[0]! : concatenate(outs, 1);
  const back = (t: Tensor, like: Tensor) => (t.dtype === like.dtype ? t : cast(t, like.dtype));
  return [back(y, q), back(S, past ?? q)];
};

/** BitCast (opset 26): each element's bits as `to`, of the same width (raf.op.bitcast); narrow types are refused. */
const bitCastForm: Form = (ctx) => {
  const x = ctx.input(0);
  if (!x) throw new Error('BitCast needs an input');
  const to = ctx.attr('to');
  if (typeof to !== 'number') throw new Error("BitCast's attribute 'to' is missing");
  const narrow = formatOf(x) ?? narrowFormatOf(to);
  if (narrow)
    throw new Error(`BitCast to or from ${narrow} is not imported (raf-op holds ${narrow} values, not their bits)`);
  return [bitcast(x, onnxDType(to))];
};

export const EXTRA_FORMS: Readonly<Record<string, Form>> = {
  BitCast: bitCastForm,
  HannWindow: hann,
  HammingWindow: hamming,
  BlackmanWindow: blackman,
  MelWeightMatrix: melWeightMatrix,
  MatMul: matmulForm,
  Pow: powForm,
  Split: splitForm,
  Gelu: geluForm,
  BatchNormalization: batchNormForm,
  TensorScatter: tensorScatter,
  ConvTranspose: convTranspose3d,
  DeformConv: deformConvForm,
  CausalConvWithState: causalConvWithState,
  DFT: dftForm,
  STFT: stftForm,
  LinearAttention: linearAttention,
};
