// Importer forms of ONNX's QuantizeLinear and DequantizeLinear (registered in forms.ts): their output_dtype attribute
// (opset 21 and 23) is a TensorProto element type where 0 means "unset"; the mapping takes a raf-op dtype, so 0 is
// dropped here. Narrow types (int4, float8...: the zero point's, x's or output_dtype's) go through narrow.ts.

import type { Tensor } from '../../tensor.ts';
import { dequantizeFormat, formatOf, quantizeToFormat } from './narrow.ts';
import { narrowFormatOf, type OnnxAttr } from './proto.ts';
import { onnxDType } from './values.ts';

/** What a form sees (forms.ts's ImportContext, the part these forms read). */
interface QuantImportContext {
  readonly node: { readonly attrs: readonly OnnxAttr[] };
  input(i: number): Tensor | undefined;
  attr(name: string): OnnxAttr['value'] | undefined;
  mapped(opType: string, inputs: readonly (Tensor | undefined)[], attrs: readonly OnnxAttr[]): Tensor[];
}

export const quantizeForm =
  (opType: 'QuantizeLinear' | 'DequantizeLinear') =>
  (ctx: QuantImportContext): Tensor[] | null => {
    const code = ctx.attr('output_dtype');
    if (code !== undefined && typeof code !== 'number') throw new Error(`attribute output_dtype is not an integer`);
    const [x, scale, zp] = [ctx.input(0), ctx.input(1), ctx.input(2)];
    if (x && scale && opType === 'QuantizeLinear') {
      const format = formatOf(zp) ?? (code ? narrowFormatOf(code) : undefined);
      if (format) return [quantizeToFormat(format, x, scale, zp, ctx.node.attrs)];
    }
    if (x && scale && opType === 'DequantizeLinear') {
      const format = formatOf(x);
      if (format === 'float8e8m0') throw new Error('DequantizeLinear of float8e8m0 is not defined by ONNX');
      // float8 and float4 values are float32 in raf-op; int4 and int2 are int8 and uint8, which dequantize as they are.
      if (format && !format.includes('int')) return [dequantizeFormat(x, scale, ctx.node.attrs)];
    }
    if (code === undefined) return null;
    if (code !== 0) {
      try {
        onnxDType(code);
      } catch {
        throw new Error(
          `attribute output_dtype = ${code} is not supported: raf-op has no tensor of that element type (${opType} computes uint8 and int8 values, float outputs for DequantizeLinear)`,
        );
      }
      return null;
    }
    return ctx.mapped(
      opType,
      [ctx.input(0), ctx.input(1), ctx.input(2)],
      ctx.node.attrs.filter((a) => a.name !== 'output_dtype'),
    );
  };
