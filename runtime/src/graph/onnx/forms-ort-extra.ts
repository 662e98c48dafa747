// Importer forms for ops that older exporters wrote and onnxruntime still runs, each composed from raf-op's ops with
// the semantics onnxruntime documents and computes:
//
// - The experimental ops of ONNX's first opsets that onnxruntime registers in the default domain (ONNX later removed
//   them; models of the time, such as the model zoo's Tiny YOLOv2, hold ImageScaler): ImageScaler (scale · x + a bias
//   per channel), Affine (alpha · x + beta), Scale, ScaledTanh (alpha · tanh(beta · x)), ParametricSoftplus
//   (alpha · ln(1 + exp(beta · x))) and Crop (border [left, top, right, bottom], or an output size at the top-left
//   border corner).
// - com.microsoft spellings of ops torch.onnx exported before ONNX had them: GridSample (ONNX's GridSample of opset
//   16), Trilu, Pad (opset 11's), Range, ExpandDims (Unsqueeze of one axis given as an input), GatherND (batch_dims 0),
//   TransposeMatMul (FusedMatMul's older name) and CDist (pairwise squared or plain Euclidean distances).

import { add } from '../../generated/api/add.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { softplus } from '../../generated/api/softplus.ts';
import { sqrt } from '../../generated/api/sqrt.ts';
import { stridedSlice } from '../../generated/api/strided_slice.ts';
import { subtract } from '../../generated/api/subtract.ts';
import { sum } from '../../generated/api/sum.ts';
import { tanh } from '../../generated/api/tanh.ts';
import { isFloat } from '../../dtype.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import { IMPORTER_FORMS, type Form, type ImportContext } from './forms.ts';
import { valuesOf } from './values.ts';

const need = (ctx: ImportContext, i: number, name: string): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`${ctx.node.opType}'s input ${i} (${name}) is required`);
  return t;
};
const floatInput = (ctx: ImportContext, i: number, name: string): Tensor => {
  const t = need(ctx, i, name);
  if (!isFloat(t.dtype)) throw new Error(`${ctx.node.opType}'s ${name} is ${t.dtype}; it takes float tensors`);
  return t;
};
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const scaled = (x: Tensor, k: number): Tensor => (k === 1 ? x : multiply(x, k));

/** ImageScaler: scale · x + bias[c] over NCHW x. */
const imageScaler: Form = (ctx) => {
  const x = floatInput(ctx, 0, 'input');
  const bias = (ctx.attr('bias') as number[] | undefined) ?? [];
  if (x.shape.length !== 4) throw new Error(`ImageScaler takes NCHW input, got rank ${x.shape.length}`);
  if (bias.length && bias.length !== x.shape[1])
    throw new Error(`ImageScaler's bias has ${bias.length} values for ${x.shape[1]} channels`);
  const y = scaled(x, num(ctx, 'scale', 1));
  return [bias.length ? add(y, tensor(bias, { dtype: x.dtype, shape: [bias.length, 1, 1] })) : y];
};

/** Crop: border [left, top, right, bottom]; with scale [height, width], that size from the top-left corner. */
const crop: Form = (ctx) => {
  const x = floatInput(ctx, 0, 'input');
  if (x.shape.length !== 4) throw new Error(`Crop takes NCHW input, got rank ${x.shape.length}`);
  const border = ctx.attr('border') as number[] | undefined;
  if (!border || border.length !== 4) throw new Error('Crop needs border = [left, top, right, bottom]');
  const [left, top, right, bottom] = border as [number, number, number, number];
  const size = ctx.attr('scale') as number[] | undefined;
  const [H, W] = [x.shape[2]!, x.shape[3]!];
  const end = size ? [top + size[0]!, left + size[1]!] : [H - bottom, W - right];
  if (end[0]! > H || end[1]! > W || end[0]! <= top || end[1]! <= left)
    throw new Error(`Crop's border [${border.join(', ')}] does not fit a ${H}×${W} input`);
  return [stridedSlice(x, [top, left], end, null, [2, 3])];
};

/**
 * A com.microsoft op that means a default-domain one as of `opset`: that op's form (or mapping) over the same inputs
 * and attributes.
 */
const same =
  (opType: string, opset: number): Form =>
  (ctx) => {
    const sub: ImportContext = {
      ...ctx,
      opset,
      node: { ...ctx.node, opType, domain: '' },
      mapped: (op, inputs, attrs, at = opset) => ctx.mapped(op, inputs, attrs, at),
    };
    const form = IMPORTER_FORMS[opType];
    return (
      form?.(sub) ??
      ctx.mapped(
        opType,
        ctx.node.inputs.map((_, i) => ctx.input(i)),
        ctx.node.attrs,
        opset,
      )
    );
  };

/** ExpandDims: X with a new axis of size 1 at `axis` (an int32 scalar input; negative counts from the end). */
const expandDimsForm: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const [axis] = valuesOf(need(ctx, 1, 'axis'), "ExpandDims's axis");
  if (axis === undefined) throw new Error("ExpandDims's axis is empty");
  return [expandDims(x, axis < 0 ? axis + x.shape.length + 1 : axis)];
};

/** Range: start, limit and delta (1 where absent). */
const range: Form = (ctx) => {
  const start = need(ctx, 0, 'start');
  const delta = ctx.input(2) ?? tensor([1], { dtype: start.dtype, shape: [] });
  return ctx.mapped('Range', [start, need(ctx, 1, 'limit'), delta], [], 11);
};

/** CDist: the distances between the rows of A [N, D] and of B [M, D], [N, M]; metric sqeuclidean or euclidean. */
const cdist: Form = (ctx) => {
  const [a, b] = [floatInput(ctx, 0, 'A'), floatInput(ctx, 1, 'B')];
  const metric = (ctx.attr('metric') as string | undefined) ?? 'sqeuclidean';
  if (metric !== 'sqeuclidean' && metric !== 'euclidean')
    throw new Error(`CDist metric '${metric}' is not imported (sqeuclidean and euclidean are)`);
  if (a.shape.length !== 2 || b.shape.length !== 2 || a.shape[1] !== b.shape[1])
    throw new Error(`CDist takes A [N, D] and B [M, D], got [${a.shape.join(', ')}] and [${b.shape.join(', ')}]`);
  const d = subtract(reshape(a, [a.shape[0]!, 1, a.shape[1]!]), reshape(b, [1, b.shape[0]!, b.shape[1]!]));
  const sq = sum(multiply(d, d), [2]);
  return [metric === 'euclidean' ? sqrt(sq) : sq];
};

/** The experimental ops onnxruntime registers in the default domain. */
export const ORT_DEFAULT_DOMAIN_FORMS: Readonly<Record<string, Form>> = {
  ImageScaler: imageScaler,
  Affine: (ctx) => [add(scaled(floatInput(ctx, 0, 'X'), num(ctx, 'alpha', 1)), num(ctx, 'beta', 0))],
  Scale: (ctx) => [scaled(floatInput(ctx, 0, 'input'), num(ctx, 'scale', 1))],
  ScaledTanh: (ctx) => [scaled(tanh(scaled(floatInput(ctx, 0, 'input'), num(ctx, 'beta', 1))), num(ctx, 'alpha', 1))],
  ParametricSoftplus: (ctx) => [
    scaled(softplus(scaled(floatInput(ctx, 0, 'X'), num(ctx, 'beta', 1))), num(ctx, 'alpha', 1)),
  ],
  Crop: crop,
};

/** com.microsoft spellings of default-domain ops. */
export const ORT_ALIAS_FORMS: Readonly<Record<string, Form>> = {
  'com.microsoft.GridSample': same('GridSample', 16),
  'com.microsoft.Trilu': same('Trilu', 14),
  'com.microsoft.Pad': same('Pad', 11),
  'com.microsoft.GatherND': same('GatherND', 11),
  'com.microsoft.ExpandDims': expandDimsForm,
  'com.microsoft.Range': range,
  'com.microsoft.CDist': cdist,
};
