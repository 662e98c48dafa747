// Graph mode: trace → IR → passes (type inference, autodiff, AutoCast, fusion) → executor; Relay and ONNX frontends.

// Ops, gradients and dialect ops register on import of the generated registry; graph code needs them installed.
import '../generated/index.ts';
export type { Atom, CallNode, Const, FusedNode, FusionOrigin, Graph, Node, Var } from './ir.ts';
export { countKernels } from './ir.ts';
export { trace, isSymbolic, type ParamSpec } from './trace.ts';
export { printGraph, formatType } from './printer.ts';
export { inferTypes, checkTypes } from './infer.ts';
export {
  execute,
  executeUnplanned,
  memoryLayoutOf,
  planStats,
  executeCounted,
  kernelLaunches,
  fusedStats,
  registerFusedCompiler,
  type FusedKernel,
} from './executor.ts';
export { autodiff, type AutodiffOptions } from './passes/autodiff.ts';
export { autoCast, precisionReport, type AutoCastOptions } from './passes/autocast.ts';
export { fuseOps } from './passes/fuse.ts';
export { recognizeAttention } from './passes/attention.ts';
export { foldBatchNorm } from './passes/fold-batch-norm.ts';
export { fuseEpilogues } from './passes/fuse-epilogues.ts';
export {
  fuseDialect,
  registerPattern,
  listPatterns,
  isOp,
  wildcard,
  alt,
  type Pattern,
  type DialectPattern,
} from './passes/fuse-patterns.ts';
export {
  ortRegions,
  isOrtRegion,
  releaseOrtRegions,
  type OrtRegion,
  type OrtRegionOptions,
} from './passes/ort-regions.ts';
export { fromRelay, FromRelayError, loadRelay, RelayProgram } from './frontends/from-relay.ts';
export { parseRelay, RelayParseError } from './frontends/relay-parser.ts';
export { fromOnnx, type FromOnnxOptions } from './frontends/from-onnx.ts';
export { decodeOnnx, initOnnx } from './onnx/proto.ts';
export { loadOnnx, OnnxSession, REGION_BYTES, REGION_SIGNATURES, type OnnxSessionOptions } from './onnx/session.ts';
import './fused-cpu.ts';
import './fused-webgpu.ts';
export { Model } from './model.ts';
export { reduceThenElementwiseCase, timeFusion, timeFusionAsync, onDevice, type FusionBenchCase } from './bench.ts';
export { dissolveOrtRegions, moveGraph } from './device.ts';
export { IF_OP, isIf, mapBranches, selectBranches, type IfBranches } from './control.ts';
