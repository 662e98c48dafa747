// What a generated ONNX mapping says: which ONNX op (from which opset) becomes which base op, and how inputs and attributes line up.

import type { AnyOpDef } from '../../registry.ts';
import type { OnnxConversion } from '../../vocab.ts';

export interface OnnxMapping {
  readonly onnxOp: string;
  /** The opset whose signature the mapping follows; older models use other input/attr layouts. */
  readonly opset: number;
  readonly op: AnyOpDef;
  /** Our arg for each ONNX input, in order; a non-tensor arg is read from a constant input. */
  readonly inputs: readonly string[];
  /** ONNX attribute → our arg. */
  readonly attrs: Readonly<Record<string, string>>;
  /** ONNX attributes the node must carry with exactly these values (Gemm with transB = 1 is dense). */
  readonly consts: Readonly<Record<string, number>>;
  /** What ONNX assumes for an attribute a node omits, in ONNX's spelling, where it differs from our arg's default (ReduceSum's keepdims: 1). */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** Our args whose ONNX input spells the value differently, with the conversion (runtime/src/graph/onnx/convert.ts). */
  readonly convert?: Readonly<Record<string, OnnxConversion>>;
}
