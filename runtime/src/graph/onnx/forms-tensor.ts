// Importer forms for ONNX's index and selection ops (registered in forms.ts's IMPORTER_FORMS):
// - ArgMax, ArgMin and TopK import through their mappings, then their int32 indices are cast to the int64 ONNX gives.
//   The ops themselves keep int32 indices (TVM/Relay's argmax and topk return int32, and Relay models expect it).
// - Scatter (ScatterElements' name before opset 11) is raf.op.scatter_elements; CumSum and CumProd cast back to x's
//   dtype (the ops scan narrow integers in int64), and with reverse scan the reversed axis.
// - Hardmax, OneHot, EyeLike, DepthToSpace, SpaceToDepth, ReverseSequence and CenterCropPad are compositions of ops
//   (argmax and equal; equal and where; a constant; reshape and transpose; gather_elements; take and concatenate), so
//   they run in graph mode with their data computed at run time and are differentiable where their parts are.

import { argmax } from '../../generated/api/argmax.ts';
import { cast } from '../../generated/api/cast.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { equal } from '../../generated/api/equal.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { gatherElements } from '../../generated/api/gather_elements.ts';
import { less } from '../../generated/api/less.ts';
import { add } from '../../generated/api/add.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { scatterElements } from '../../generated/api/scatter_elements.ts';
import { subtract } from '../../generated/api/subtract.ts';
import { take } from '../../generated/api/take.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { where } from '../../generated/api/where.ts';
import type { DType } from '../../dtype.ts';
import { normalizeAxis, sizeOf } from '../../shape.ts';
import { tensor, zeros, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';
import type { OnnxAttr } from './proto.ts';
import { onnxDType, valuesOf } from './values.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const int64 = (values: readonly number[], shape?: readonly number[]) =>
  tensor(values, { dtype: 'int64', ...(shape ? { shape } : {}) });
/** 0, 1, ..., n - 1 as int64, laid along `axis` of a rank-`rank` tensor (1 on every other axis). */
const iotaAlong = (n: number, axis: number, rank: number) =>
  int64(
    Array.from({ length: n }, (_, i) => i),
    Array.from({ length: rank }, (_, d) => (d === axis ? n : 1)),
  );
const toInt64 = (t: Tensor) => (t.dtype === 'int64' ? t : cast(t, 'int64'));

/** ArgMax / ArgMin: the mapped op's int32 indices as ONNX's int64. */
const argIndex: Form = (ctx) => ctx.mapped(ctx.node.opType, [need(ctx, 0)], ctx.node.attrs).map(toInt64);

/** TopK: k is an attribute before opset 10, an input after; the indices come out int64, as ONNX has them. */
const topk: Form = (ctx) => {
  const x = need(ctx, 0);
  let k = ctx.input(1);
  let attrs: readonly OnnxAttr[] = ctx.node.attrs;
  if (ctx.opset < 10) {
    const given = ctx.attr('k') as number | undefined;
    if (given === undefined) throw new Error("TopK before opset 10 needs the attribute 'k'");
    k = int64([given]);
    attrs = attrs.filter((a) => a.name !== 'k');
  }
  const [values, indices] = ctx.mapped('TopK', [x, k], attrs);
  return [values!, toInt64(indices!)];
};

/**
 * CumSum and CumProd: the scan through the mapping, cast back to x's dtype (ONNX keeps T; raf.op.cumsum and cumprod
 * scan bool and narrow integers in int64 / uint64 as NumPy does, so those wrap back as a fixed-width scan does). With
 * reverse = 1, the scan of x reversed along axis, reversed back (Relay's cumsum and cumprod have no reverse).
 */
const scanForm: Form = (ctx) => {
  const x = need(ctx, 0);
  const axisIn = need(ctx, 1);
  const back = (y: Tensor) => (y.dtype !== x.dtype ? cast(y, x.dtype) : y);
  if (!num(ctx, 'reverse', 0)) {
    const [y] = ctx.mapped(ctx.node.opType, [x, axisIn], ctx.node.attrs);
    return [back(y!)];
  }
  const axis = normalizeAxis(valuesOf(axisIn, `${ctx.node.opType}'s axis`)[0]!, x.shape.length);
  const len = x.shape[axis]!;
  const order = int64(Array.from({ length: len }, (_, i) => len - 1 - i));
  const attrs = ctx.node.attrs.filter((a) => a.name !== 'reverse');
  const [y] = ctx.mapped(ctx.node.opType, [take(x, order, axis), axisIn], attrs);
  return [back(take(y!, order, axis))];
};

/** Scatter (opsets 9 and 10): ScatterElements without reduction. */
const scatter: Form = (ctx) => [scatterElements(need(ctx, 0), need(ctx, 1), need(ctx, 2), num(ctx, 'axis', 0), 'none')];

/**
 * Hardmax: 1 at the first maximum along axis, 0 elsewhere, in x's dtype. From opset 13 along one axis (default -1);
 * before, over x coerced to 2-D at axis (default 1), as Softmax then was.
 */
const hardmax: Form = (ctx) => {
  const x = need(ctx, 0);
  const rank = x.shape.length;
  const one = (t: Tensor, axis: number) => {
    const len = t.shape[axis]!;
    const hot = equal(argmax(t, axis, true), cast(iotaAlong(len, axis, t.shape.length), 'int32'));
    return cast(hot, t.dtype);
  };
  if (ctx.opset >= 13) return [one(x, normalizeAxis(num(ctx, 'axis', -1), rank))];
  const axis = normalizeAxis(num(ctx, 'axis', 1), rank);
  const flat = reshape(x, [sizeOf(x.shape.slice(0, axis)), sizeOf(x.shape.slice(axis))]);
  return [reshape(one(flat, 1), x.shape)];
};

/**
 * OneHot: values[1] where the (int64-truncated) index equals the position along the new axis, values[0] elsewhere;
 * negative indices count from depth, indices outside [-depth, depth - 1] give a row of values[0]. depth decides the
 * output shape, so it must be known at import.
 */
const oneHot: Form = (ctx) => {
  const indices = need(ctx, 0);
  const raw = valuesOf(need(ctx, 1), "OneHot's depth");
  if (raw.length !== 1) throw new Error(`OneHot's depth must hold one value, got ${raw.length}`);
  const depth = Math.trunc(raw[0]!);
  if (!(depth > 0)) throw new Error(`OneHot's depth must be positive, got ${raw[0]}`);
  const values = need(ctx, 2);
  if (values.size !== 2) throw new Error(`OneHot's values must hold [off, on], got ${values.size} elements`);
  const rank = indices.shape.length + 1;
  const axis = normalizeAxis(num(ctx, 'axis', -1), rank);
  const idx = toInt64(indices);
  const wrapped = expandDims(where(less(idx, int64([0], [])), add(idx, int64([depth], [])), idx), axis);
  const hot = equal(wrapped, iotaAlong(depth, axis, rank));
  const at = (i: number) => reshape(take(reshape(values, [2]), int64([i]), 0), []);
  return [where(hot, at(1), at(0))];
};

/** EyeLike: ones on the k-th diagonal of x's 2-D shape; a constant, since only x's shape matters. */
const eyeLike: Form = (ctx) => {
  const x = need(ctx, 0);
  if (x.shape.length !== 2) throw new Error(`EyeLike takes a 2-D input, got rank ${x.shape.length}`);
  const code = ctx.attr('dtype') as number | undefined;
  const dtype: DType = code === undefined ? x.dtype : onnxDType(code);
  const [rows, cols] = x.shape as [number, number];
  const k = num(ctx, 'k', 0);
  const data = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) if (i + k >= 0 && i + k < cols) data[i * cols + i + k] = 1;
  return [tensor(data, { dtype, shape: [rows, cols] })];
};

const blocks = (ctx: ImportContext, op: string) => {
  const x = need(ctx, 0);
  if (x.shape.length !== 4) throw new Error(`${op} takes a 4-D [N, C, H, W] input, got rank ${x.shape.length}`);
  const b = num(ctx, 'blocksize', 0);
  if (!(b >= 1)) throw new Error(`${op} needs a positive blocksize, got ${b}`);
  return { x, b, dims: x.shape as [number, number, number, number] };
};

/** DepthToSpace in DCR (default) or CRD mode, as reshape, transpose, reshape. */
const depthToSpace: Form = (ctx) => {
  const { x, b, dims } = blocks(ctx, 'DepthToSpace');
  const [N, C, H, W] = dims;
  if (C % (b * b)) throw new Error(`DepthToSpace: ${C} channels are not a multiple of blocksize² = ${b * b}`);
  const c = C / (b * b);
  const mode = (ctx.attr('mode') as string | undefined) ?? 'DCR';
  let t: Tensor;
  if (mode === 'DCR') t = transpose(reshape(x, [N, b, b, c, H, W]), [0, 3, 4, 1, 5, 2]);
  else if (mode === 'CRD') t = transpose(reshape(x, [N, c, b, b, H, W]), [0, 1, 4, 2, 5, 3]);
  else throw new Error(`DepthToSpace mode '${mode}' is not one of DCR, CRD`);
  return [reshape(t, [N, c, H * b, W * b])];
};

/** SpaceToDepth: each blocksize × blocksize patch to channels, as reshape, transpose, reshape. */
const spaceToDepth: Form = (ctx) => {
  const { x, b, dims } = blocks(ctx, 'SpaceToDepth');
  const [N, C, H, W] = dims;
  if (H % b || W % b) throw new Error(`SpaceToDepth: height ${H} and width ${W} must be multiples of blocksize ${b}`);
  const t = transpose(reshape(x, [N, C, H / b, b, W / b, b]), [0, 3, 5, 1, 2, 4]);
  return [reshape(t, [N, C * b * b, H / b, W / b])];
};

/**
 * ReverseSequence: along time_axis, the first sequence_lens[i] entries of batch entry i reversed, the rest kept; a
 * gather along time_axis at t < len ? len - 1 - t : t, so sequence_lens may be computed at run time.
 */
const reverseSequence: Form = (ctx) => {
  const x = need(ctx, 0);
  const lens = toInt64(need(ctx, 1));
  const rank = x.shape.length;
  if (rank < 2) throw new Error(`ReverseSequence takes an input of rank 2 or more, got ${rank}`);
  const timeAxis = normalizeAxis(num(ctx, 'time_axis', 0), rank);
  const batchAxis = normalizeAxis(num(ctx, 'batch_axis', 1), rank);
  if (timeAxis === batchAxis) throw new Error('ReverseSequence: time_axis and batch_axis must differ');
  if (timeAxis > 1 || batchAxis > 1) throw new Error('ReverseSequence: time_axis and batch_axis must be 0 and 1');
  const batch = x.shape[batchAxis]!;
  if (lens.shape.length !== 1 || lens.shape[0] !== batch)
    throw new Error(`ReverseSequence: sequence_lens must have shape [${batch}], got [${lens.shape.join(', ')}]`);
  const t = iotaAlong(x.shape[timeAxis]!, timeAxis, rank);
  const len = reshape(
    lens,
    x.shape.map((_, d) => (d === batchAxis ? batch : 1)),
  );
  const src = where(less(t, len), subtract(subtract(len, int64([1], [])), t), t);
  const full = add(src, zeros(x.shape, 'int64'));
  return [gatherElements(x, full, timeAxis)];
};

/**
 * CenterCropPad: each of axes (all by default) cropped to, or zero-padded to, the target length, centered; an odd
 * difference leaves the extra element at the end. The target shape must be known at import.
 */
const centerCropPad: Form = (ctx) => {
  let x = need(ctx, 0);
  const target = valuesOf(need(ctx, 1), "CenterCropPad's shape");
  const rank = x.shape.length;
  const given = ctx.attr('axes') as number[] | undefined;
  const axes = given ? given.map((a) => normalizeAxis(a, rank)) : [...Array(rank).keys()];
  if (target.length !== axes.length)
    throw new Error(`CenterCropPad: shape has ${target.length} values for ${axes.length} axes`);
  axes.forEach((axis, i) => {
    const dim = x.shape[axis]!;
    const want = target[i]!;
    if (want < 0) throw new Error(`CenterCropPad: negative target length ${want}`);
    if (want < dim) {
      const start = Math.floor((dim - want) / 2);
      x = take(x, int64(Array.from({ length: want }, (_, j) => start + j)), axis);
    } else if (want > dim) {
      const before = Math.floor((want - dim) / 2);
      const pad = (n: number) =>
        zeros(
          x.shape.map((d, a) => (a === axis ? n : d)),
          x.dtype,
        );
      x = concatenate([...(before ? [pad(before)] : []), x, pad(want - dim - before)], axis);
    }
  });
  return [x];
};

/** Registered in forms.ts's IMPORTER_FORMS. */
export const TENSOR_FORMS: Readonly<Record<string, Form>> = {
  ArgMax: argIndex,
  ArgMin: argIndex,
  TopK: topk,
  Scatter: scatter,
  CumSum: scanForm,
  CumProd: scanForm,
  Hardmax: hardmax,
  OneHot: oneHot,
  EyeLike: eyeLike,
  DepthToSpace: depthToSpace,
  SpaceToDepth: spaceToDepth,
  ReverseSequence: reverseSequence,
  CenterCropPad: centerCropPad,
};
