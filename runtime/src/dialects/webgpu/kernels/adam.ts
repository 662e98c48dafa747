// WebGPU kernel of raf.op.adam (specs/optim/adam.yaml): one invocation per element, torch.optim.Adam's (AdamW's) update
// as on the CPU, in float32, with the bias corrections from step (a float32 or int32 tensor; one pipeline each). Ten
// storage buffers: on a device with fewer per shader stage it declines (returns null) and says so in the dispatch error.

import type { AdamKernel } from '../../../generated/bridge/adam.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const WORDS = 8; // n, amsgrad, decoupled, lr, beta1, beta2, eps, weight_decay
const BUFFERS = 10;

const source = (stepType: 'f32' | 'i32') => `@group(0) @binding(0) var<storage, read> param: array<f32>;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read> m: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read> vmax: array<f32>;
@group(0) @binding(5) var<storage, read> step: array<${stepType}>;
@group(0) @binding(6) var<storage, read_write> new_param: array<f32>;
@group(0) @binding(7) var<storage, read_write> new_m: array<f32>;
@group(0) @binding(8) var<storage, read_write> new_v: array<f32>;
@group(0) @binding(9) var<storage, read_write> new_vmax: array<f32>;
${paramsWgsl(10, WORDS)}
// beta^t for beta in [0, 1) (pow is undefined at a zero base).
fn powBeta(beta: f32, t: f32) -> f32 { return select(pow(beta, t), 0.0, beta == 0.0); }
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let decoupled = pu(2u) != 0u;
  let lr = pf(3u);
  let beta1 = pf(4u);
  let beta2 = pf(5u);
  let wd = pf(7u);
  let t = f32(step[0]);
  let p0 = param[i];
  let p = select(p0, p0 * (1.0 - lr * wd), decoupled);
  let g = grad[i] + select(wd, 0.0, decoupled) * p0;
  let mi = beta1 * m[i] + (1.0 - beta1) * g;
  let vi = beta2 * v[i] + (1.0 - beta2) * g * g;
  let mx = select(vmax[i], vi, vi > vmax[i] || vi != vi);
  new_m[i] = mi;
  new_v[i] = vi;
  new_vmax[i] = mx;
  let denom = sqrt(select(vi, mx, pu(1u) != 0u)) / sqrt(1.0 - powBeta(beta2, t)) + pf(6u);
  new_param[i] = p - lr / (1.0 - powBeta(beta1, t)) * (mi / denom);
}`;

export const adamWebgpu: WebGpuBuilder<AdamKernel> = (_attrs, outs, inputs) => {
  const gpu = requireGpu();
  const { param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step } = inputs;
  const f32 = [param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, ...outs].every((t) => t.dtype === 'float32');
  if (!f32 || (step.dtype !== 'float32' && step.dtype !== 'int32')) return null;
  if (gpu.device.limits.maxStorageBuffersPerShaderStage < BUFFERS) return null;
  const stepType = step.dtype === 'float32' ? 'f32' : 'i32';
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('adam', stepType), () => source(stepType));
  return (ins, { lr, beta1, beta2, eps, weight_decay, amsgrad, decoupled_weight_decay }, kouts): Tensor[] => {
    const out = kouts.map((o) => allocGpu(gpu, o));
    const params = new Params()
      .u32(ins.param.size)
      .u32(amsgrad ? 1 : 0)
      .u32(decoupled_weight_decay ? 1 : 0)
      .f32(lr)
      .f32(beta1)
      .f32(beta2)
      .f32(eps)
      .f32(weight_decay)
      .data(WORDS);
    const buffers = [ins.param, ins.grad, ins.exp_avg, ins.exp_avg_sq, ins.max_exp_avg_sq, ins.step, ...out];
    if (ins.param.size > 0) launch(gpu, pipeline, buffers, params, ins.param.size, 'adam');
    return out;
  };
};
