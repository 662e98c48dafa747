// `@raf-op/runtime/extend`: what an operator author's package (and the code raf-op generates into it) builds ops from.
// Generated code in a user's package imports the runtime only through this entry and the main one, never by path.

import './generated/index.ts';
import type { AnyOpDef } from './registry.ts';
import type { ComputeDef } from './graph/expr.ts';
import type { OnnxMapping } from './graph/onnx/mapping.ts';
import { COMPUTE } from './generated/passes/index.ts';
import { ONNX_MAPPINGS } from './generated/onnx/index.ts';

// The typed registry and the pieces of an op definition.
export {
  installOps,
  getOp,
  listOps,
  type AnyOpDef,
  type OpDef,
  type GradDef,
  type GradContext,
  type GradResult,
  type Declared,
  type Typed,
} from './registry.ts';
export { parseArgs, type FieldSpec, type Keyword } from './schema.ts';
export { invoke, call, commonDevice } from './dispatch.ts';
export {
  argValues,
  broadcastOf,
  checkAxes,
  checkAxis,
  checkDtypes,
  checkLike,
  checkNonEmpty,
  checkNonNegative,
  checkOneOf,
  checkPositive,
  checkRange,
  concatOf,
  matmulOf,
  reduceOf,
  sameAs,
  sameDtype,
} from './checks.ts';
export { promote, promotionTarget, type PromoteRule } from './promote.ts';
export type { CastRule, FusionPattern, ArgType } from './vocab.ts';
export type { ComputeDef, ComputeExpr } from './graph/expr.ts';
export type { OnnxMapping } from './graph/onnx/mapping.ts';
export { installRelayConverters, relayArgs, type RelayConverter } from './relay.ts';
// How an ONNX oracle spells args ONNX takes differently (Split's sizes), for a package's generated tests.
export { ONNX_CONVERSION_RULES } from './graph/onnx/convert.ts';

// Dialect registration and the bridge a dialect op is built on.
export {
  registerDialect,
  registerDialectOps,
  withDialect,
  allDialectOps,
  type Bridge,
  type DialectOp,
} from './dialect.ts';

// Tensors and shapes, for kernels and shape rules.
export { Tensor, tensor, scalar, full, zeros, ones, fromStorage, type TensorType } from './tensor.ts';
export { DTYPES, isFloat, type DType } from './dtype.ts';
export { OpError } from './errors.ts';
export {
  broadcastAxes,
  broadcastShapes,
  broadcastStrides,
  formatShape,
  isValidAxis,
  normalizeAxis,
  shapesEqual,
  sizeOf,
  stridesOf,
  type Shape,
} from './shape.ts';

// CPU kernel helpers (the generated elementwise kernels use these too).
export {
  allocOut,
  aroundAxis,
  broadcastIndex,
  broadcastRows,
  finish,
  reduceIndex,
  type RowPlan,
} from './dialects/cpu/support.ts';
export {
  bitAnd,
  bitNot,
  bitOr,
  bitXor,
  erf,
  erfc,
  floorMod,
  mulInt32,
  roundHalfEven,
  shiftLeft,
  shiftRight,
  sigmoid,
  softplus,
} from './dialects/cpu/math.ts';

// WebGPU kernel helpers; `elementwise` is the generated WGSL kernels' builder.
export { elementwise as webgpuElementwise } from './dialects/webgpu/elementwise.ts';
export {
  allFloat32,
  launch,
  paramsWgsl,
  pipelineKey,
  Params,
  FLAT_INDEX,
  MAIN_1D,
  MAX_RANK,
  WORKGROUP,
  type WebGpuBuilder,
} from './dialects/webgpu/kernel.ts';

export { initWebGpu, webgpuUnavailable } from './dialects/webgpu/index.ts';

// The ort dialect's builder: the generated ort bridges make each ONNX-mapped op's onnxruntime kernel with it.
export { ortDialectOp, ortUnavailable } from './dialects/ort/index.ts';

// Every built-in schema class, for ops in a package that reuse one (`schema: softmax`).
export * from './generated/schemas.ts';
// Every op's bridge and kernel types: a package's kernel for a built-in op (an `overrides: true` spec) is typed by them.
export * from './generated/bridges.ts';

// Checking a registration: opcheck, and the numeric gradient check it uses.
export { opcheck, OpcheckError, type OpcheckSample, type OpcheckOptions, type OpcheckReport } from './opcheck.ts';
export { gradcheck, type GradcheckFailure } from './gradcheck.ts';

/** What a package's generated `register.ts` hands over: its ops and the generated tables the runtime reads by op. */
export interface Extension {
  readonly ops: Readonly<Record<string, AnyOpDef>>;
  /** Compute expressions of elementwise ops, which fusion inlines. */
  readonly compute: Readonly<Record<string, ComputeDef | null>>;
  /** FromOnnx mappings. */
  readonly onnx: readonly (OnnxMapping | null)[];
}

/**
 * Adds a package's compute expressions and ONNX mappings to the runtime's tables (its ops, gradients, dialect ops
 * and Relay converters were installed by its generated index). Called once when the package is imported; a second
 * call with the same tables changes nothing.
 */
export function registerExtension(ext: Extension): void {
  const compute = COMPUTE as Record<string, ComputeDef | null>;
  for (const [op, def] of Object.entries(ext.compute)) compute[op] = def;
  // A package's mappings come before the runtime's own: FromOnnx tries them first, so a package that maps an ONNX op
  // raf-op also maps (its own Softsign) imports that op as the package's.
  const mappings = ONNX_MAPPINGS as (OnnxMapping | null)[];
  mappings.unshift(...ext.onnx.filter((m): m is OnnxMapping => m !== null && !mappings.includes(m)));
}
