// The public runtime API: tensors, every generated op, autodiff, dialect control and FromRelay.

import './generated/index.ts';
import './generated/dialects/ort/index.ts'; // onnxruntime-node on Node, where installed (docs/runtime.md)

export * from './generated/ops.ts';
export * as ops from './generated/ops.ts';
export { OPS, type OpName } from './generated/index.ts';
export { DTYPES, isFloat, type DType } from './dtype.ts';
export { device, deviceName, CPU, type Device, type DeviceKind } from './device.ts';
export {
  Tensor,
  tensor,
  scalar,
  full,
  zeros,
  ones,
  fromStorage,
  randomUniform,
  rng,
  setMaxTensorBytes,
  getMaxTensorBytes,
  type TensorType,
} from './tensor.ts';
export { OpError, DispatchError } from './errors.ts';
export { stringTensor, stringsOf, isStringTensor } from './strings.ts';
export { call, invoke, dispatchStats } from './dispatch.ts';
export { tidy } from './scope.ts';
export { withDialect, registerDialect, allDialectOps } from './dialect.ts';
export { backward, grad, valueAndGrad, noGrad } from './autodiff.ts';
export { gradcheck, type GradcheckFailure } from './gradcheck.ts';
export { getOp, listOps, type OpDef } from './registry.ts';
export { fromRelayCall } from './relay.ts';
export type { CastRule, FusionPattern, ArgType } from './vocab.ts';
export {
  initWebGpu,
  releaseGpu,
  webgpuUnavailable,
  benchWebGpu,
  gpuSync,
  type WebGpuTiming,
} from './dialects/webgpu/index.ts';
export {
  initWasm,
  relaxedSimdSupported,
  setWasmBuild,
  setWasmWinograd,
  toWasmMemory,
  wasmBuild,
  wasmUnavailable,
  wasmWinograd,
  type WasmBuild,
  type WinogradTile,
} from './dialects/wasm/index.ts';
export { initWasmThreads, setWasmThreads, wasmThreads } from './dialects/wasm/threads/index.ts';
export * as graph from './graph/index.ts';
export * as train from './train/index.ts'; // optimizers, trainStep, safetensors checkpoints (docs/training.md)
export {
  trace,
  execute,
  Model,
  printGraph,
  fromRelay,
  loadRelay,
  RelayProgram,
  fromOnnx,
  loadOnnx,
  OnnxSession,
  autodiff,
  autoCast,
  fuseOps,
  fuseDialect,
  ortRegions,
} from './graph/index.ts';
