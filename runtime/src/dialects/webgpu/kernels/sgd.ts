// WebGPU kernel of raf.op.sgd (specs/optim/sgd.yaml): one invocation per element, torch.optim.SGD's update as on the
// CPU, in float32. step may be a float32 or int32 tensor (one pipeline each); the hyperparameters are uniforms, so a
// learning-rate schedule compiles nothing new.

import type { SgdKernel } from '../../../generated/bridge/sgd.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const WORDS = 7; // n, momentum != 0, nesterov, lr, momentum, dampening, weight_decay

const source = (stepType: 'f32' | 'i32') => `@group(0) @binding(0) var<storage, read> param: array<f32>;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read> buf: array<f32>;
@group(0) @binding(3) var<storage, read> step: array<${stepType}>;
@group(0) @binding(4) var<storage, read_write> new_param: array<f32>;
@group(0) @binding(5) var<storage, read_write> new_buf: array<f32>;
${paramsWgsl(6, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let p = param[i];
  var d = grad[i] + pf(6u) * p;
  if (pu(1u) != 0u) {
    // torch starts the buffer as a copy of the first step's gradient.
    var b = d;
    if (f32(step[0]) != 1.0) { b = pf(4u) * buf[i] + (1.0 - pf(5u)) * d; }
    new_buf[i] = b;
    d = select(b, d + pf(4u) * b, pu(2u) != 0u);
  } else {
    new_buf[i] = d;
  }
  new_param[i] = p - pf(3u) * d;
}`;

export const sgdWebgpu: WebGpuBuilder<SgdKernel> = (_attrs, outs, { param, grad, momentum_buffer, step }) => {
  const gpu = requireGpu();
  const f32 = [param, grad, momentum_buffer, outs[0]!, outs[1]!].every((t) => t.dtype === 'float32');
  if (!f32 || (step.dtype !== 'float32' && step.dtype !== 'int32')) return null;
  const stepType = step.dtype === 'float32' ? 'f32' : 'i32';
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('sgd', stepType), () => source(stepType));
  return (
    { param, grad, momentum_buffer, step },
    { lr, momentum, dampening, weight_decay, nesterov },
    kouts,
  ): Tensor[] => {
    const newParam = allocGpu(gpu, kouts[0]!);
    const newBuf = allocGpu(gpu, kouts[1]!);
    const params = new Params()
      .u32(param.size)
      .u32(momentum !== 0 ? 1 : 0)
      .u32(nesterov ? 1 : 0)
      .f32(lr)
      .f32(momentum)
      .f32(dampening)
      .f32(weight_decay)
      .data(WORDS);
    if (param.size > 0)
      launch(gpu, pipeline, [param, grad, momentum_buffer, step, newParam, newBuf], params, param.size, 'sgd');
    return [newParam, newBuf];
  };
};
