// The training API: optimizers over named parameters (their updates are the ops raf.op.sgd, adam and lans), an eager
// training step, and checkpoints in the safetensors format. See docs/training.md.

export { Optimizer, SGD, Adam, Lans, sgd, adam, adamw, lans } from './optim.ts';
export type { SgdOptions, AdamOptions, LansOptions, OptimizerState, OptimizerKind } from './optim.ts';
export { lossAndGrads, trainStep, type LossFn } from './step.ts';
export { saveSafetensors, loadSafetensors } from './safetensors.ts';
export { saveCheckpoint, loadCheckpoint } from './checkpoint.ts';
export { TrainError } from './errors.ts';
export type { Params } from './tensors.ts';
export {
  compileLossAndGrads,
  compileTrainStep,
  type BatchLossFn,
  type CompiledLossAndGrads,
  type CompiledTrainStep,
  type CompileTrainStepOptions,
} from './compiled.ts';
export { GradScaler, ampTrainStep, type GradScalerOptions, type GradScalerState } from './amp.ts';
export { onnxParams, type OnnxParams, type OnnxParamsOptions, type FreezeSpec } from './onnx.ts';
