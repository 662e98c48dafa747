// What a generated ONNX mapping says: which ONNX op (from which opset) becomes which base op, and how inputs and attributes line up.

import type { AnyOpDef } from '../../registry.ts';
import type { OnnxConversion } from '../../vocab.ts';

/** How opsets below `until` spell the op, where that differs from the mapping's own form. */
export interface OnnxForm {
  readonly until: number;
  readonly inputs: readonly string[] | null;
  readonly attrs: Readonly<Record<string, string>> | null;
  readonly defaults: Readonly<Record<string, unknown>>;
}

export interface OnnxMapping {
  readonly onnxOp: string;
  /** The opset whose signature `inputs` and `attrs` follow. */
  readonly opset: number;
  /** The first opset with the ONNX op; the mapping imports every opset from here on. */
  readonly since: number;
  /** Older spellings, newest first: for an opset below `until`, the last such form's overrides apply. */
  readonly before?: readonly OnnxForm[];
  readonly op: AnyOpDef;
  /** Our arg for each ONNX input, in order; a non-tensor arg is read from a constant input. */
  readonly inputs: readonly string[];
  /** ONNX attribute → our arg. */
  readonly attrs: Readonly<Record<string, string>>;
  /** ONNX attributes the node must carry with exactly these values (Gemm with transB = 1 is dense). */
  readonly consts: Readonly<Record<string, number>>;
  /** ONNX attributes no arg carries that a node may set: to this value (their ONNX default), or to anything when null. */
  readonly accept?: Readonly<Record<string, unknown>>;
  /** What ONNX assumes for an attribute a node omits, in ONNX's spelling, where it differs from our arg's default (ReduceSum's keepdims: 1). */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** Our args whose ONNX input spells the value differently, with the conversion (runtime/src/graph/onnx/convert.ts). */
  readonly convert?: Readonly<Record<string, OnnxConversion>>;
}
