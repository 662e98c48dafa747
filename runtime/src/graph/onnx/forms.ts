// Importer forms: ONNX nodes FromOnnx rewrites before (or instead of) the generated mappings, because exporters spell them
// in ways no single op's signature covers (Conv with a bias and 1-D, Gemm's alpha/beta, Reshape's 0 rule, If on a known
// condition) or because they only move values known at import (Shape, Size, ConstantOfShape, Range, Identity).

import type { DType } from '../../dtype.ts';
import { add } from '../../generated/api/add.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { logSoftmax } from '../../generated/api/log_softmax.ts';
import { matmul } from '../../generated/api/matmul.ts';
import { maximum } from '../../generated/api/maximum.ts';
import { minimum } from '../../generated/api/minimum.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { softmax } from '../../generated/api/softmax.ts';
import { squeeze } from '../../generated/api/squeeze.ts';
import { take } from '../../generated/api/take.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { where } from '../../generated/api/where.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { constantOfShape } from '../../generated/api/constant_of_shape.ts';
import { range as rangeOp } from '../../generated/api/range.ts';
import { size } from '../../generated/api/size.ts';
import { resize } from '../../generated/api/resize.ts';
import { broadcastShapes, normalizeAxis, shapesEqual, sizeOf } from '../../shape.ts';
import { Tensor, tensor, zeros } from '../../tensor.ts';
import { isSymbolic } from '../trace.ts';
import { constTensor, onnxDType, valuesOf } from './values.ts';
import { isOnnxGraph, type OnnxAttr, type OnnxGraph, type OnnxNode, type OnnxTensor } from './proto.ts';

/** What a form sees of the node it imports. */
export interface ImportContext {
  readonly node: OnnxNode;
  readonly opset: number;
  /** The value of input i; undefined where the node leaves it out. */
  input(i: number): Tensor | undefined;
  attr(name: string): OnnxAttr['value'] | undefined;
  /**
   * Converts a subgraph (If's branches, Loop's body) in a scope that sees this graph's values, its formal inputs bound
   * to `inputs` by position; its outputs.
   */
  subgraph(g: OnnxGraph, inputs?: readonly Tensor[]): Tensor[];
  /** Imports `opType` over these inputs and attributes through the generated mappings. */
  mapped(opType: string, inputs: readonly (Tensor | undefined)[], attrs: readonly OnnxAttr[]): Tensor[];
}

/** A form returns the node's outputs, or null to leave the node to the generated mappings. */
type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};
const ints = (ctx: ImportContext, name: string): number[] | undefined => ctx.attr(name) as number[] | undefined;
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const known = (ctx: ImportContext, i: number, what: string): number[] => valuesOf(need(ctx, i), what);

/** Pads [begin..., end...] for ONNX's auto_pad SAME_UPPER / SAME_LOWER (the extra cell goes at the end / start). */
function autoPads(
  mode: string,
  inShape: readonly number[],
  kernel: readonly number[],
  strides: readonly number[],
  dil: readonly number[],
) {
  const n = kernel.length;
  const pads = new Array<number>(2 * n).fill(0);
  if (mode === 'VALID') return pads;
  for (let i = 0; i < n; i++) {
    const out = Math.ceil(inShape[i]! / strides[i]!);
    const total = Math.max(0, (out - 1) * strides[i]! + (kernel[i]! - 1) * dil[i]! + 1 - inShape[i]!);
    const small = Math.floor(total / 2);
    pads[i] = mode === 'SAME_LOWER' ? total - small : small;
    pads[i + n] = total - pads[i]!;
  }
  return pads;
}

/** Conv with any of: a bias input, 1-D input, auto_pad, kernel_shape. The 2-D core goes through conv2d's mapping. */
const conv: Form = (ctx) => {
  const x = need(ctx, 0);
  const w = need(ctx, 1);
  const b = ctx.input(2);
  const rank = x.shape.length - 2;
  if (rank < 1 || rank > 3) throw new Error(`${rank}-D convolution is not imported (1-D, 2-D and 3-D are)`);
  const kernel = w.shape.slice(2);
  const ks = ints(ctx, 'kernel_shape');
  if (ks && !shapesEqual(ks, kernel))
    throw new Error(`kernel_shape [${ks.join(', ')}] disagrees with the weight's [${kernel.join(', ')}]`);
  const strides = ints(ctx, 'strides') ?? kernel.map(() => 1);
  const dil = ints(ctx, 'dilations') ?? kernel.map(() => 1);
  const mode = (ctx.attr('auto_pad') as string | undefined) ?? 'NOTSET';
  const pads =
    mode === 'NOTSET'
      ? (ints(ctx, 'pads') ?? [...kernel, ...kernel].map(() => 0))
      : autoPads(mode, x.shape.slice(2), kernel, strides, dil);
  if (rank === 3) return [conv3d(ctx, x, w, b, strides, dil, pads, num(ctx, 'group', 1))];
  const as2d = (v: readonly number[], fill: number) => (rank === 1 ? [fill, v[0]!] : [...v]);
  const attrs: OnnxAttr[] = [
    { name: 'strides', value: as2d(strides, 1) },
    { name: 'dilations', value: as2d(dil, 1) },
    { name: 'pads', value: rank === 1 ? [0, pads[0]!, 0, pads[1]!] : pads },
    { name: 'group', value: num(ctx, 'group', 1) },
  ];
  const [x2, w2] = rank === 1 ? [expandDims(x, 2), expandDims(w, 2)] : [x, w];
  let y = ctx.mapped('Conv', [x2, w2], attrs)[0]!;
  if (b) y = add(y, reshape(b, [b.shape[0]!, 1, 1]));
  return [rank === 1 ? squeeze(y, [2]) : y];
};

/**
 * 3-D Conv as one 2-D conv per kernel depth tap: the depth slices that tap reads (zero-padded in depth) fold into the
 * batch, conv2d (through Conv's mapping) runs over height and width, and the taps' results add up.
 */
function conv3d(
  ctx: ImportContext,
  x: Tensor,
  w: Tensor,
  b: Tensor | undefined,
  strides: readonly number[],
  dil: readonly number[],
  pads: readonly number[],
  group: number,
): Tensor {
  const [N, C, D, H, W] = x.shape as [number, number, number, number, number];
  const [O, kD] = [w.shape[0]!, w.shape[2]!];
  const [before, after] = [pads[0]!, pads[3]!];
  let xp = x;
  if (before || after)
    xp = concatenate(
      [
        ...(before ? [zeros([N, C, before, H, W], x.dtype)] : []),
        x,
        ...(after ? [zeros([N, C, after, H, W], x.dtype)] : []),
      ],
      2,
    );
  const depth = Math.floor((D + before + after - dil[0]! * (kD - 1) - 1) / strides[0]!) + 1;
  if (depth < 1) throw new Error(`the kernel's depth ${kD} does not fit the padded input's ${D + before + after}`);
  const attrs: OnnxAttr[] = [
    { name: 'strides', value: strides.slice(1) },
    { name: 'dilations', value: dil.slice(1) },
    { name: 'pads', value: [pads[1]!, pads[2]!, pads[4]!, pads[5]!] },
    { name: 'group', value: group },
  ];
  let y: Tensor | null = null;
  for (let k = 0; k < kD; k++) {
    const at = Array.from({ length: depth }, (_, d) => d * strides[0]! + k * dil[0]!);
    const slices = transpose(take(xp, intTensor(at), 2), [0, 2, 1, 3, 4]);
    const tap = ctx.mapped(
      'Conv',
      [reshape(slices, [N * depth, C, H, W]), squeeze(take(w, intTensor([k]), 2), [2])],
      attrs,
    )[0]!;
    y = y ? add(y, tap) : tap;
  }
  const [Ho, Wo] = [y!.shape[2]!, y!.shape[3]!];
  let out = transpose(reshape(y!, [N, depth, O, Ho, Wo]), [0, 2, 1, 3, 4]);
  if (b) out = add(out, reshape(b, [O, 1, 1, 1]));
  return out;
}

/** Gemm: alpha · op(A) · op(B) + beta · C; the plain x·Wᵀ + b goes to dense through its mapping. */
const gemm: Form = (ctx) => {
  const [a, b, c] = [need(ctx, 0), need(ctx, 1), ctx.input(2)];
  const [alpha, beta] = [num(ctx, 'alpha', 1), num(ctx, 'beta', 1)];
  const [ta, tb] = [num(ctx, 'transA', 0), num(ctx, 'transB', 0)];
  if (alpha === 1 && beta === 1 && !ta && tb && c && c.shape.length === 1)
    return ctx.mapped('Gemm', [a, b, c], [{ name: 'transB', value: 1 }]);
  let y = matmul(ta ? transpose(a, [1, 0]) : a, tb ? transpose(b, [1, 0]) : b);
  if (alpha !== 1) y = multiply(y, alpha);
  if (c) y = add(y, beta === 1 ? c : multiply(c, beta));
  return [y];
};

/** Reshape with ONNX's 0 (copy the input's dim unless allowzero) and -1. */
const reshapeForm: Form = (ctx) => {
  const x = need(ctx, 0);
  const allowzero = num(ctx, 'allowzero', 0);
  const target = known(ctx, 1, "Reshape's shape").map((d, i) => (d === 0 && !allowzero ? x.shape[i]! : d));
  return [reshape(x, target)];
};

/** Softmax and LogSoftmax before opset 13: over x coerced to 2-D at `axis` (default 1). */
const oldSoftmax =
  (log: boolean): Form =>
  (ctx) => {
    if (ctx.opset >= 13) return null;
    const x = need(ctx, 0);
    const axis = normalizeAxis(num(ctx, 'axis', 1), x.shape.length);
    const f = log ? logSoftmax : softmax;
    if (axis === x.shape.length - 1) return [f(x, -1)];
    const flat = reshape(x, [sizeOf(x.shape.slice(0, axis)), sizeOf(x.shape.slice(axis))]);
    return [reshape(f(flat, -1), x.shape)];
  };

const constantForm: Form = (ctx) => {
  const v = ctx.node.attrs[0];
  if (!v) throw new Error('Constant without a value');
  const value = v.value;
  switch (v.name) {
    case 'value':
      return [constTensor(value as OnnxTensor)];
    case 'value_float':
      return [tensor([value as number], { dtype: 'float32', shape: [] })];
    case 'value_floats':
      return [tensor(value as number[], { dtype: 'float32' })];
    case 'value_int':
      return [tensor([value as number], { dtype: 'int64', shape: [] })];
    case 'value_ints':
      return [tensor(value as number[], { dtype: 'int64' })];
    default:
      throw new Error(`Constant's '${v.name}' is not imported`);
  }
};

/** Shapes, sizes and indices computed at import are int64, as ONNX has them. */
const intTensor = (values: readonly number[], shape?: readonly number[]) =>
  tensor(values, { dtype: 'int64', ...(shape ? { shape } : {}) });

const shapeForm: Form = (ctx) => {
  const s = need(ctx, 0).shape;
  const n = s.length;
  const clamp = (v: number) => Math.min(n, Math.max(0, v < 0 ? v + n : v));
  return [intTensor(s.slice(clamp(num(ctx, 'start', 0)), clamp(num(ctx, 'end', n))))];
};

/**
 * ConstantOfShape as raf.op.constant_of_shape, its value attribute (a one-element tensor) giving value and dtype. A shape
 * known at import (from Shape of an input, whose dims each signature fixes) runs while converting, so the result is a
 * constant; one computed at run time is refused by the op's type function, naming the input.
 */
const constantOfShapeForm: Form = (ctx) => {
  const v = ctx.attr('value') as OnnxTensor | undefined;
  const dtype: DType = v ? v.dtype : 'float32';
  return [constantOfShape(need(ctx, 0), v?.values[0] ?? 0, dtype)];
};

/** Range as raf.op.range; known start, limit and delta (constants, folded scalar inputs) run while converting. */
const rangeForm: Form = (ctx) => [rangeOp(need(ctx, 0), need(ctx, 1), need(ctx, 2))];

/**
 * Size as raf.op.size on a known tensor; a traced input's shape is fixed per input signature, so its size folds to an
 * int64 constant there (as Shape does), which keeps the shape arithmetic that reads it known at import.
 */
const sizeForm: Form = (ctx) => {
  const x = need(ctx, 0);
  return [isSymbolic(x) ? intTensor([sizeOf(x.shape)], []) : size(x)];
};

const expand: Form = (ctx) => {
  const x = need(ctx, 0);
  const target = broadcastShapes(x.shape, known(ctx, 1, "Expand's shape"));
  if (!target) throw new Error(`cannot expand ${JSON.stringify(x.shape)} to the given shape`);
  return [shapesEqual(target, x.shape) ? x : add(x, zeros(target, x.dtype))];
};

/**
 * If: a condition known at import takes one branch (the other is never converted); one computed at run time converts
 * both branches and selects each output with where, which needs the branches' outputs to agree in shape and dtype.
 */
const ifForm: Form = (ctx) => {
  const cond = need(ctx, 0);
  const branch = (name: string): Tensor[] => {
    const g = ctx.attr(name);
    if (!isOnnxGraph(g)) throw new Error(`If without a ${name} graph`);
    try {
      return ctx.subgraph(g);
    } catch (e) {
      throw new Error(`${name}: ${(e as Error).message}`);
    }
  };
  if (!isSymbolic(cond)) return branch(valuesOf(cond, "If's condition")[0] ? 'then_branch' : 'else_branch');
  const [yes, no] = [branch('then_branch'), branch('else_branch')];
  return yes.map((a, i) => {
    const b = no[i]!;
    if (!shapesEqual(a.shape, b.shape) || a.dtype !== b.dtype)
      throw new Error(
        `If's condition is computed at run time and its branches' output ${i} differ (${a.dtype}[${a.shape.join(', ')}] vs ${b.dtype}[${b.shape.join(', ')}]); only equal ones are selected with where`,
      );
    return where(reshape(cond, []), a, b);
  });
};

/** Pad in reflect or edge mode: one gather per padded axis, its indices known at import. Constant mode is pad's mapping. */
const padForm: Form = (ctx) => {
  const mode = (ctx.attr('mode') as string | undefined) ?? 'constant';
  if (mode === 'constant') return null;
  let x = need(ctx, 0);
  const n = x.shape.length;
  const pads = ctx.opset < 11 ? (ints(ctx, 'pads') ?? []) : known(ctx, 1, "Pad's pads");
  const axes =
    ctx.opset >= 18 && ctx.input(3)
      ? known(ctx, 3, "Pad's axes").map((a) => normalizeAxis(a, n))
      : [...Array(n).keys()];
  axes.forEach((axis, k) => {
    const [before, after] = [pads[k]!, pads[k + axes.length]!];
    if (before < 0 || after < 0) throw new Error(`Pad ${mode} with negative pads is not imported`);
    if (!before && !after) return;
    const len = x.shape[axis]!;
    if (mode === 'reflect' && (before >= len || after >= len))
      throw new Error(`Pad reflect of ${before}/${after} on an axis of ${len} reaches past the edge`);
    const at = (i: number) =>
      mode === 'edge' ? Math.min(len - 1, Math.max(0, i)) : i < 0 ? -i : i >= len ? 2 * (len - 1) - i : i;
    const idx = Array.from({ length: before + len + after }, (_, i) => at(i - before));
    x = take(x, intTensor(idx), axis);
  });
  if (mode !== 'reflect' && mode !== 'edge') throw new Error(`Pad mode '${mode}' is not imported`);
  return [x];
};

/** Clip from opset 11 with bounds computed at run time: maximum and minimum. Known bounds are clip's mapping. */
const clipForm: Form = (ctx) => {
  if (ctx.opset < 11) return null;
  const [lo, hi] = [ctx.input(1), ctx.input(2)];
  if (!(lo && isSymbolic(lo)) && !(hi && isSymbolic(hi))) return null;
  let y = need(ctx, 0);
  if (lo) y = maximum(y, lo);
  if (hi) y = minimum(y, hi);
  return [y];
};

/**
 * LSTM and GRU as the ops lstm and gru (through their mappings), after refusing what those do not compute: peepholes,
 * custom activations (the defaults, spelled out, are fine), LSTM's input_forget, clip, layout = 1. hidden_size, which
 * the ops require, is read from R when the node leaves it out; sequence_lens known at import to be the full length
 * for every batch entry is dropped.
 */
const rnnForm =
  (op: 'LSTM' | 'GRU', defaults: readonly string[]): Form =>
  (ctx) => {
    const [x, W, R] = [need(ctx, 0), need(ctx, 1), need(ctx, 2)];
    if (op === 'LSTM' && ctx.input(7)) throw new Error('LSTM peepholes are not imported');
    const direction = (ctx.attr('direction') as string | undefined) ?? 'forward';
    const dirs = direction === 'bidirectional' ? 2 : 1;
    // A STRINGS attribute arrives joined by NUL (proto.ts).
    const rawActs = ctx.attr('activations');
    const acts = rawActs === undefined ? undefined : String(rawActs).split('\u0000');
    const standard = Array.from({ length: dirs }, () => defaults).flat();
    if (
      acts &&
      (acts.length !== standard.length || acts.some((a, i) => a.toLowerCase() !== standard[i]!.toLowerCase()))
    )
      throw new Error(
        `${op} with custom activations [${acts.join(', ')}] is not imported (only ${standard.join(', ')})`,
      );
    if (ctx.attr('activation_alpha') !== undefined || ctx.attr('activation_beta') !== undefined)
      throw new Error(`${op} activation_alpha/activation_beta are not imported`);
    if (op === 'LSTM' && num(ctx, 'input_forget', 0)) throw new Error('LSTM input_forget is not imported');
    if (ctx.attr('clip') !== undefined) throw new Error(`${op} clip is not imported`);
    if (num(ctx, 'layout', 0)) throw new Error(`${op} layout = 1 is not imported`);
    const T = x.shape[0]!;
    let seqLens = ctx.input(4);
    if (seqLens && !isSymbolic(seqLens) && valuesOf(seqLens, 'sequence_lens').every((l) => l === T))
      seqLens = undefined;
    const inputs = [x, W, R, ctx.input(3), seqLens, ctx.input(5), op === 'LSTM' ? ctx.input(6) : undefined];
    const attrs: OnnxAttr[] = [
      { name: 'direction', value: direction },
      { name: 'hidden_size', value: num(ctx, 'hidden_size', R.shape[2]!) },
    ];
    if (op === 'GRU') attrs.push({ name: 'linear_before_reset', value: num(ctx, 'linear_before_reset', 0) });
    return ctx.mapped(op, op === 'LSTM' ? inputs : inputs.slice(0, 6), attrs);
  };
const lstm = rnnForm('LSTM', ['Sigmoid', 'Tanh', 'Tanh']);
const gru = rnnForm('GRU', ['Sigmoid', 'Tanh']);

/** The most iterations FromOnnx unrolls a Loop to. */
const MAX_UNROLL = 4096;

/**
 * Loop whose trip count and condition are known at import: unrolled, the body converted once per iteration with the
 * carried values of the one before; scan outputs are stacked along a new axis 0. A condition computed at run time,
 * or no bound at all, is refused, naming the reason.
 */
const loop: Form = (ctx) => {
  const body = ctx.attr('body');
  if (!isOnnxGraph(body)) throw new Error('Loop without a body graph');
  const M = ctx.input(0);
  const condIn = ctx.input(1);
  if (M && isSymbolic(M)) throw new Error("Loop's trip count is computed at run time; only a known one is unrolled");
  if (condIn && isSymbolic(condIn))
    throw new Error("Loop's condition is computed at run time; only a known one is unrolled");
  const trips = M ? valuesOf(M, "Loop's trip count")[0]! : Infinity;
  let cond = condIn ? Boolean(valuesOf(condIn, "Loop's condition")[0]) : true;
  const nCarried = ctx.node.inputs.length - 2;
  let carried = Array.from({ length: nCarried }, (_, i) => need(ctx, i + 2));
  const scans: Tensor[][] = [];
  let i = 0;
  for (; i < trips && cond; i++) {
    if (i >= MAX_UNROLL)
      throw new Error(`Loop runs past ${MAX_UNROLL} iterations at import; only shorter loops are unrolled`);
    const iter = tensor([i], { dtype: 'int32', shape: [] });
    const flag = tensor([1], { dtype: 'bool', shape: [] });
    let outs: Tensor[];
    try {
      outs = ctx.subgraph(body, [iter, flag, ...carried]);
    } catch (e) {
      throw new Error(`body (iteration ${i}): ${(e as Error).message}`);
    }
    const [condOut, ...rest] = outs;
    if (!condOut) throw new Error("Loop's body has no outputs");
    if (isSymbolic(condOut))
      throw new Error(`Loop's condition is computed at run time in iteration ${i}; only a known one is unrolled`);
    cond = Boolean(valuesOf(condOut, "Loop's condition")[0]);
    carried = rest.slice(0, nCarried);
    rest.slice(nCarried).forEach((t, k) => (scans[k] ??= []).push(expandDims(t, 0)));
  }
  const nScans = body.outputs.length - 1 - nCarried;
  if (nScans > 0 && i === 0)
    throw new Error('Loop with scan outputs runs zero iterations; an empty scan is not imported');
  return [...carried, ...Array.from({ length: nScans }, (_, k) => concatenate(scans[k]!, 0))];
};

/**
 * Resize as raf.op.resize, which takes every opset's form: before 11 the scales are input 1 and the coordinates
 * asymmetric with nearest rounding down; from 11 roi, scales and sizes are inputs 1 to 3 (an empty one is not given).
 * Scales and sizes must be known at import, as the output shape depends on them.
 */
const resizeForm: Form = (ctx) => {
  const x = need(ctx, 0);
  // Opset 18's additions: only their defaults are imported.
  if (ctx.attr('axes')) throw new Error('Resize with axes is not imported');
  if (num(ctx, 'antialias', 0)) throw new Error('Resize with antialias is not imported');
  const policy = (ctx.attr('keep_aspect_ratio_policy') as string | undefined) ?? 'stretch';
  if (policy !== 'stretch') throw new Error(`Resize keep_aspect_ratio_policy '${policy}' is not imported (stretch is)`);
  const old = ctx.opset < 11;
  const list = (i: number, what: string) => {
    const t = ctx.input(i);
    return t && t.size ? known(ctx, i, what) : [];
  };
  const roi = old ? [] : list(1, "Resize's roi");
  const mode = (ctx.attr('coordinate_transformation_mode') as string | undefined) ?? 'half_pixel';
  return [
    resize(
      x,
      list(old ? 1 : 2, "Resize's scales"),
      old ? null : list(3, "Resize's sizes").length ? list(3, "Resize's sizes") : null,
      // roi only matters to tf_crop_and_resize (which resize refuses by mode); other modes ignore it, as ONNX says.
      mode === 'tf_crop_and_resize' ? roi : [],
      (ctx.attr('mode') as string | undefined) ?? 'nearest',
      old ? 'asymmetric' : mode,
      old ? 'floor' : ((ctx.attr('nearest_mode') as string | undefined) ?? 'round_prefer_floor'),
      num(ctx, 'cubic_coeff_a', -0.75),
      num(ctx, 'exclude_outside', 0) !== 0,
    ),
  ];
};

/** Unsqueeze of any number of axes (an attribute before opset 13, an input after), as expand_dims one axis at a time. */
const unsqueeze: Form = (ctx) => {
  let x = need(ctx, 0);
  const axes = ctx.opset < 13 ? (ints(ctx, 'axes') ?? []) : known(ctx, 1, "Unsqueeze's axes");
  const rank = x.shape.length + axes.length;
  for (const a of axes.map((a) => normalizeAxis(a, rank)).sort((p, q) => p - q)) x = expandDims(x, a);
  return [x];
};

export const IMPORTER_FORMS: Readonly<Record<string, Form>> = {
  Constant: constantForm,
  Identity: (ctx) => [need(ctx, 0)],
  Dropout: (ctx) => [need(ctx, 0)],
  Cast: (ctx) => {
    const x = need(ctx, 0);
    return onnxDType(num(ctx, 'to', 1)) === x.dtype ? [x] : null;
  },
  Shape: shapeForm,
  Size: sizeForm,
  ConstantOfShape: constantOfShapeForm,
  Range: rangeForm,
  Expand: expand,
  Reshape: reshapeForm,
  Conv: conv,
  Gemm: gemm,
  Softmax: oldSoftmax(false),
  LogSoftmax: oldSoftmax(true),
  If: ifForm,
  Loop: loop,
  Pad: padForm,
  Clip: clipForm,
  LSTM: lstm,
  GRU: gru,
  Resize: resizeForm,
  Unsqueeze: unsqueeze,
};
