// Value conversions between an arg of ours and the ONNX input it maps to, where the two spell a value differently (spec `onnx.convert`).

import { normalizeAxis } from '../../shape.ts';
import type { DType } from '../../dtype.ts';
import type { TensorType } from '../../tensor.ts';
import type { OnnxConversion } from '../../vocab.ts';

export interface OnnxConversionRule {
  /**
   * Ours → ONNX (the test oracle): the input's values, null to omit it, and how many outputs the node then has.
   * `x` is the op's first tensor input; `args` every non-tensor arg, defaults filled in.
   */
  toOnnx(
    value: unknown,
    x: TensorType,
    args: Readonly<Record<string, unknown>>,
  ): { readonly input: readonly number[] | null; readonly outputs: number };
  /** ONNX → ours (FromOnnx): from the node's constant input (null when it omits it) and its output count. */
  fromOnnx(input: readonly number[] | null, outputs: number): unknown;
  /** For an arg ONNX spells as a tensor attribute (the test oracle): that tensor's dtype, shape and values. */
  toOnnxAttr?(
    value: unknown,
    args: Readonly<Record<string, unknown>>,
  ): { readonly dtype: DType; readonly shape: number[]; readonly data: number[] };
}

export const ONNX_CONVERSION_RULES: { [K in OnnxConversion]: OnnxConversionRule } = {
  // NumPy's indices_or_sections: an int n is n equal sections; a list of ascending indices cuts before each. ONNX
  // reads equal sections from a missing `split` input up to opset 17 and from a `num_outputs` attribute from 18, so
  // both are written as their sizes (the sizes between the cuts, the last running to the axis' end), which every
  // opset from 13 reads alike: a node is then valid in a model of any opset (an ort region takes its nodes' highest).
  split_sizes: {
    toOnnx(value, x, args) {
      const dim = x.shape[normalizeAxis(args.axis as number, x.shape.length)]!;
      if (typeof value === 'number') return { input: Array<number>(value).fill(dim / value), outputs: value };
      const cuts = [0, ...(value as readonly number[]), dim];
      const sizes = cuts.slice(1).map((c, i) => c - cuts[i]!);
      return { input: sizes, outputs: sizes.length };
    },
    fromOnnx(input, outputs) {
      if (input === null) return outputs;
      const indices: number[] = [];
      let at = 0;
      for (const size of input.slice(0, -1)) indices.push((at += size));
      return indices;
    },
  },
  // ConstantOfShape's value: our number and dtype args, ONNX's one-element tensor attribute (its dtype the output's).
  value_tensor: {
    toOnnx() {
      throw new Error('value_tensor converts an attribute, not an input');
    },
    fromOnnx(input) {
      return input?.[0] ?? 0;
    },
    toOnnxAttr(value, args) {
      return { dtype: args.dtype as DType, shape: [1], data: [value as number] };
    },
  },
};
