// Importer forms of ONNX's QuantizeLinear and DequantizeLinear (registered in forms.ts): their output_dtype attribute
// (opset 21 and 23) is a TensorProto element type where 0 means "unset"; the mapping takes a raf-op dtype, so 0 is
// dropped here and a type raf-op has no tensor for (int16, int4, float8...) is refused naming the attribute.

import type { Tensor } from '../../tensor.ts';
import type { OnnxAttr } from './proto.ts';
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
    if (code === undefined) return null;
    if (typeof code !== 'number') throw new Error(`attribute output_dtype is not an integer`);
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
