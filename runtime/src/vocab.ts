// The one vocabulary shared by specs, generated code and passes: arg types, fusion patterns, cast rules.

/**
 * Arg types a schema field may have; `?` marks optional (nullable), `[]` a list. `int|int[]` keeps a number apart
 * from a list (split's indices_or_sections: 3 means three sections, [3] a split at index 3), where `int[]` takes 3 as [3].
 */
export const ARG_TYPES = [
  'Tensor',
  'Tensor?',
  'Tensor[]',
  'int',
  'int?',
  'int[]',
  'int[]?',
  'int|int[]',
  'float',
  'float?',
  'float[]',
  'bool',
  'dtype',
  'dtype?',
  'string',
  'string?',
] as const;
export type ArgType = (typeof ARG_TYPES)[number];

/** TVM's operator pattern kinds, in fusion order: a lower kind may fuse into a higher one. */
export const FUSION_PATTERNS = [
  'elemwise',
  'broadcast',
  'injective',
  'comm_reduce',
  'out_ewise_fusable',
  'opaque',
] as const;
export type FusionPattern = (typeof FUSION_PATTERNS)[number];

/**
 * Conversions between an arg of ours and the ONNX input it maps to, where the two spell a value differently
 * (`onnx: { convert: { arg: name } }`); implemented in runtime/src/graph/onnx/convert.ts.
 * `split_sizes`: NumPy/Relay indices_or_sections (an int = equal sections, a list = split indices) ↔ ONNX Split's sizes.
 * `value_tensor`: a number arg ↔ an ONNX attribute holding it as a one-element tensor of the op's `dtype` arg
 * (ConstantOfShape's value).
 */
export const ONNX_CONVERSIONS = ['split_sizes', 'value_tensor'] as const;
export type OnnxConversion = (typeof ONNX_CONVERSIONS)[number];

/** AMP cast rules after RAF: always cast data args to float16, never, or follow the inputs. */
export const CAST_RULES = ['always', 'never', 'infer'] as const;
export type CastRuleKind = (typeof CAST_RULES)[number];

export interface CastRule {
  readonly rule: CastRuleKind;
  /** The tensor args the rule applies to (RAF's "number of data args", resolved to names). */
  readonly dataArgs: readonly string[];
}
