// Importer forms for onnxruntime's quantized operators (domain com.microsoft) that its static quantizer writes in the
// QOperator format (quantize_static with QuantFormat.QOperator) and that its QDQ format writes for 16-bit types: each
// dequantizes its uint8 or int8 inputs ((q - zero point) · scale, in float32), computes the float op with raf-op's ops
// and quantizes the result to the output's scale and zero point (round half to even, saturated to the zero point's
// type), as the operators are documented (onnxruntime's docs/ContribOperators.md). onnxruntime's own kernels compute
// some of them in fixed point or through lookup tables, so an output may differ from its by one code where the exact
// value lies near a rounding boundary.
//
// - QuantizeLinear, DequantizeLinear: ONNX's (per tensor or per axis, axis 1 by default), here for int16 and uint16 too.
// - QLinearAdd, QLinearMul (broadcasting), QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax (axis; `opset` < 13
//   softmaxes the flattened trailing axes as ONNX's Softmax did before opset 13), QLinearWhere.
// - QLinearAveragePool (AveragePool's attributes) and QLinearGlobalAveragePool, each with channels_last;
//   QLinearConcat; QLinearConv with channels_last and NhwcMaxPool (onnxruntime's NHWC layout of quantized models).
// - QGemm: alpha · A' · B' + C over dequantized operands, C an int32 bias at scale alpha · a_scale · b_scale; a float output
//   where y_scale is absent.
//
// QLinearReduceMean, MulInteger and ReduceSumInteger are not imported: onnxruntime's CPU provider has no kernel for
// them, so no model it runs holds them and nothing here could check them against it.

import { isFloat, type DType } from '../../dtype.ts';
import { add } from '../../generated/api/add.ts';
import { cast } from '../../generated/api/cast.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { leakyRelu } from '../../generated/api/leaky_relu.ts';
import { mean } from '../../generated/api/mean.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { sigmoid } from '../../generated/api/sigmoid.ts';
import { softmax } from '../../generated/api/softmax.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { where } from '../../generated/api/where.ts';
import { zeros, type Tensor } from '../../tensor.ts';
import { IMPORTER_FORMS, type Form, type ImportContext } from './forms.ts';
import type { OnnxAttr } from './proto.ts';

const QUANT_TYPES: readonly DType[] = ['uint8', 'int8', 'uint16', 'int16'];
/**
 * The default-domain opset whose QuantizeLinear and DequantizeLinear these ops mean: 13 (per-axis scales) at least,
 * whatever opset the model imports (QOperator models of opset 10 to 12 exist).
 */
const AS_OF = (ctx: ImportContext): number => Math.max(ctx.opset, 13);

const need = (ctx: ImportContext, i: number, name: string): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`${ctx.node.opType}'s input ${i} (${name}) is required`);
  return t;
};
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;

/** A quantized input: its values, scale and zero point (0 of the values' type where absent). */
interface Quantized {
  readonly q: Tensor;
  readonly scale: Tensor;
  readonly zero: Tensor;
}

/** A quantized input: its values at input `at`, scale at `at + 1` and zero point at `at + 2`. */
export const quantized = (ctx: ImportContext, at: number, name: string): Quantized =>
  quantizedAt(ctx, name, at, at + 1, at + 2);

/** A quantized input whose values, scale and zero point are inputs `at`, `scaleAt` and `zeroAt`. */
export function quantizedAt(ctx: ImportContext, name: string, at: number, scaleAt: number, zeroAt: number): Quantized {
  const q = need(ctx, at, name);
  if (!QUANT_TYPES.includes(q.dtype))
    throw new Error(`${ctx.node.opType}'s ${name} is ${q.dtype}; it takes ${QUANT_TYPES.join(', ')} tensors`);
  const scale = need(ctx, scaleAt, `${name}'s scale`);
  if (!isFloat(scale.dtype)) throw new Error(`${ctx.node.opType}'s ${name} scale is ${scale.dtype}, not a float`);
  return { q, scale, zero: zeroPoint(ctx, zeroAt, name, q.dtype) };
}

function zeroPoint(ctx: ImportContext, at: number, name: string, dtype: DType): Tensor {
  const z = ctx.input(at);
  if (!z) return zeros([], dtype);
  if (z.dtype !== dtype)
    throw new Error(`${ctx.node.opType}'s ${name} zero point is ${z.dtype}; its values are ${dtype}`);
  return z;
}

/** (q - zero point) · scale, as DequantizeLinear computes it; a scale with several values is per `axis`. */
export const dequantize = (ctx: ImportContext, x: Quantized, axis = 1): Tensor =>
  ctx.mapped(
    'DequantizeLinear',
    [x.q, x.scale, x.zero],
    x.scale.size > 1 || x.zero.size > 1 ? [{ name: 'axis', value: axis } as OnnxAttr] : [],
    AS_OF(ctx),
  )[0]!;

/** y quantized at the scale and zero point of inputs `at` and `at + 1` (zero point 0 of `dtype` where absent). */
function requantize(ctx: ImportContext, y: Tensor, at: number, dtype: DType): Tensor {
  const scale = need(ctx, at, 'output scale');
  const zero = zeroPoint(ctx, at + 1, 'output', ctx.input(at + 1)?.dtype ?? dtype);
  return ctx.mapped('QuantizeLinear', [y, scale, zero], [], AS_OF(ctx))[0]!;
}

/** A form of another op run over these inputs and attributes (the importer's own, or the generated mapping). */
function delegate(ctx: ImportContext, opType: string, inputs: readonly Tensor[], attrs: readonly OnnxAttr[]): Tensor {
  const form = IMPORTER_FORMS[opType];
  if (!form) return ctx.mapped(opType, inputs, attrs)[0]!;
  const sub: ImportContext = {
    ...ctx,
    node: { ...ctx.node, opType, domain: '', inputs: inputs.map((_, i) => `#${i}`), attrs },
    input: (i) => inputs[i],
    value: (i) => inputs[i],
    attr: (name) => attrs.find((a) => a.name === name)?.value,
  };
  return (form(sub) ?? ctx.mapped(opType, inputs, attrs))[0] as Tensor;
}

const withoutAttrs = (ctx: ImportContext, names: readonly string[]) =>
  ctx.node.attrs.filter((a) => !names.includes(a.name));

/** NHWC → NCHW (channels_last = 1), and back. */
const toChannelsFirst = (x: Tensor) =>
  transpose(x, [0, x.shape.length - 1, ...x.shape.slice(1, -1).map((_, i) => i + 1)]);
const toChannelsLast = (x: Tensor) => transpose(x, [0, ...x.shape.slice(2).map((_, i) => i + 2), 1]);

/** QLinearAdd, QLinearMul: A, its scale and zero point, B, its scale and zero point, C's scale and zero point. */
const binary =
  (op: (a: Tensor, b: Tensor) => Tensor): Form =>
  (ctx) => {
    const [a, b] = [quantized(ctx, 0, 'A'), quantized(ctx, 3, 'B')];
    return [requantize(ctx, op(dequantize(ctx, a), dequantize(ctx, b)), 6, a.q.dtype)];
  };

/** An elementwise op: X, its scale and zero point, Y's scale and zero point. */
const unary =
  (op: (ctx: ImportContext, x: Tensor) => Tensor): Form =>
  (ctx) => {
    const x = quantized(ctx, 0, 'X');
    return [requantize(ctx, op(ctx, dequantize(ctx, x)), 3, x.q.dtype)];
  };

/** QLinearSoftmax: `opset` (required) is the Softmax opset whose semantics apply; below 13, over the flattened axes. */
const qlinearSoftmax = unary((ctx, x) => {
  const version = ctx.attr('opset') as number | undefined;
  if (version === undefined) throw new Error(`QLinearSoftmax's attribute opset is required`);
  const r = x.shape.length;
  const axis = num(ctx, 'axis', version < 13 ? 1 : -1);
  const at = axis < 0 ? axis + r : axis;
  if (version >= 13) return softmax(x, at);
  const rows = x.shape.slice(0, at).reduce((p, q) => p * q, 1);
  return reshape(softmax(reshape(x, [rows, -1]), 1), x.shape);
});

/** QLinearAveragePool: AveragePool's attributes, channels_last. */
const qlinearAveragePool = unary((ctx, x) => {
  const last = num(ctx, 'channels_last', 0) !== 0;
  const y = delegate(ctx, 'AveragePool', [last ? toChannelsFirst(x) : x], withoutAttrs(ctx, ['channels_last']));
  return last ? toChannelsLast(y) : y;
});

/** QLinearGlobalAveragePool: the mean over the spatial axes (after the channels, or before them: channels_last). */
const qlinearGlobalAveragePool = unary((ctx, x) => {
  const r = x.shape.length;
  if (r < 3) throw new Error(`QLinearGlobalAveragePool needs an input of rank 3 or more, got rank ${r}`);
  const last = num(ctx, 'channels_last', 0) !== 0;
  const axes = Array.from({ length: r - 2 }, (_, i) => (last ? i + 1 : i + 2));
  return mean(x, axes, true);
});

/** QLinearConcat: Y's scale and zero point, then each input's values, scale and zero point. */
const qlinearConcat: Form = (ctx) => {
  const count = ctx.node.inputs.length - 2;
  if (count < 1 || count % 3 !== 0)
    throw new Error(
      `QLinearConcat takes Y's scale and zero point, then (X, scale, zero point) triples; got ${count + 2} inputs`,
    );
  const xs = Array.from({ length: count / 3 }, (_, k) => quantized(ctx, 2 + 3 * k, `X${k}`));
  const axis = ctx.attr('axis') as number | undefined;
  if (axis === undefined) throw new Error(`QLinearConcat's attribute axis is required`);
  const y = concatenate(
    xs.map((x) => dequantize(ctx, x)),
    axis,
  );
  return [requantize(ctx, y, 0, xs[0]!.q.dtype)];
};

/** QLinearWhere: condition, X (values, scale, zero point), Y (the same), Z's scale and zero point. */
const qlinearWhere: Form = (ctx) => {
  const cond = need(ctx, 0, 'condition');
  const [x, y] = [quantized(ctx, 1, 'X'), quantized(ctx, 4, 'Y')];
  return [requantize(ctx, where(cast(cond, 'bool'), dequantize(ctx, x), dequantize(ctx, y)), 7, x.q.dtype)];
};

/**
 * QGemm: A, its scale and zero point, B, its scale and zero point, C (int32 at scale alpha · a_scale · b_scale, zero
 * point 0, as onnxruntime adds it to the integer accumulator),
 * y_scale and y_zero_point; alpha, transA, transB. Where y_scale is absent the output is float.
 */
const qgemm: Form = (ctx) => {
  const [a, b] = [quantized(ctx, 0, 'A'), quantized(ctx, 3, 'B')];
  const alpha = num(ctx, 'alpha', 1);
  // b_scale and b_zero_point per column of B' (B's rows where transB).
  let y = delegate(
    ctx,
    'Gemm',
    [dequantize(ctx, a), dequantize(ctx, b, num(ctx, 'transB', 0) ? 0 : 1)],
    ctx.node.attrs.filter((attr) => attr.name === 'transA' || attr.name === 'transB' || attr.name === 'alpha'),
  );
  const c = ctx.input(6);
  if (c) {
    if (c.dtype !== 'int32') throw new Error(`QGemm's C is ${c.dtype}; it takes an int32 bias`);
    y = add(y, multiply(cast(c, 'float32'), multiply(multiply(a.scale, b.scale), alpha)));
  }
  return [ctx.input(7) ? requantize(ctx, y, 7, a.q.dtype) : y];
};

/** ONNX's QuantizeLinear and DequantizeLinear in onnxruntime's domain (its QDQ format's 16-bit types). */
const quantizeLinear =
  (opType: 'QuantizeLinear' | 'DequantizeLinear'): Form =>
  (ctx) =>
    ctx.mapped(opType, [ctx.input(0), ctx.input(1), ctx.input(2)], ctx.node.attrs, AS_OF(ctx));

/** onnxruntime's QLinearConv: ONNX's, with channels_last (x and y NHWC; the weight stays OIHW). */
const qlinearConv: Form = (ctx) => {
  const last = num(ctx, 'channels_last', 0) !== 0;
  const inputs = Array.from({ length: 9 }, (_, i) => ctx.input(i));
  const x = need(ctx, 0, 'x');
  const attrs = withoutAttrs(ctx, ['channels_last']);
  const y = ctx.mapped('QLinearConv', last ? [toChannelsFirst(x), ...inputs.slice(1)] : inputs, attrs)[0]!;
  return [last ? toChannelsLast(y) : y];
};

/** NhwcMaxPool: MaxPool over NHWC uint8 or int8 values (the maximum of codes is the code of the maximum). */
const nhwcMaxPool: Form = (ctx) => {
  const x = need(ctx, 0, 'x');
  return [toChannelsLast(delegate(ctx, 'MaxPool', [toChannelsFirst(x)], ctx.node.attrs))];
};

export const QLINEAR_FORMS: Readonly<Record<string, Form>> = {
  'com.microsoft.QuantizeLinear': quantizeLinear('QuantizeLinear'),
  'com.microsoft.DequantizeLinear': quantizeLinear('DequantizeLinear'),
  'com.microsoft.QLinearAdd': binary(add),
  'com.microsoft.QLinearMul': binary(multiply),
  'com.microsoft.QLinearSigmoid': unary((_, x) => sigmoid(x)),
  'com.microsoft.QLinearLeakyRelu': unary((ctx, x) => leakyRelu(x, num(ctx, 'alpha', 0.01))),
  'com.microsoft.QLinearSoftmax': qlinearSoftmax,
  'com.microsoft.QLinearAveragePool': qlinearAveragePool,
  'com.microsoft.QLinearGlobalAveragePool': qlinearGlobalAveragePool,
  'com.microsoft.QLinearConcat': qlinearConcat,
  'com.microsoft.QLinearWhere': qlinearWhere,
  'com.microsoft.QGemm': qgemm,
  'com.microsoft.QLinearConv': qlinearConv,
  'com.microsoft.NhwcMaxPool': nhwcMaxPool,
};
