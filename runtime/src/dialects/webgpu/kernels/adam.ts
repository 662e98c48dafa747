// WebGPU kernel of raf.op.adam (specs/optim/adam.yaml): one invocation per element, torch.optim.Adam's (AdamW's) update
// as on the CPU, in float32, with the bias corrections from step (a float32 or int32 tensor; one pipeline each). Ten
// storage buffers: on a device with fewer per shader stage it declines (returns null) and says so in the dispatch error.
// 1 - beta1 and 1 - beta2 come from the host in float64 (rounded once), and 1 - beta^step is -expm1(step log(beta))
// from them: in float32, 1 - f32(0.999) is 1.3e-5 off and 1 - pow(beta2, step) loses more to cancellation, which put a
// relative error of ~1e-5 into every update (the CPU's is ~1e-7) and took a 40-step CNN run 7e-3 off NumPy's loss.

import type { AdamKernel } from '../../../generated/bridge/adam.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const WORDS = 10; // n, amsgrad, decoupled, lr, beta1, beta2, eps, weight_decay, 1 - beta1, 1 - beta2
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
// log(beta) from om = 1 - beta in (0, 1): while om < 0.5 the series of log(1 + x) = 2 atanh(x / (2 + x)) at x = -om
// (s^2 <= 1/9, truncated below 1e-8 relative), where log(f32(beta)) would have lost om's digits.
fn logBeta(om: f32) -> f32 {
  if (om >= 0.5) { return log(1.0 - om); }
  let s = -om / (2.0 - om);
  let s2 = s * s;
  return 2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0 + s2 * (1.0 / 11.0
    + s2 * (1.0 / 13.0 + s2 * (1.0 / 15.0 + s2 / 17.0))))))));
}
// 1 - beta^t for om = 1 - beta and t >= 1: -expm1(y), y = t log(beta) <= 0, by its series to y^10 / 10! while
// y >= -0.5 (no cancellation), else 1 - exp(y) (exp(y) <= 0.61). beta = 0 gives 1; beta = 1 gives 0 as on the CPU.
fn oneMinusPow(om: f32, t: f32) -> f32 {
  if (om >= 1.0) { return 1.0; }
  if (om <= 0.0) { return 0.0; }
  let y = t * logBeta(om);
  if (y < -0.5) { return 1.0 - exp(y); }
  return -y * (1.0 + y / 2.0 * (1.0 + y / 3.0 * (1.0 + y / 4.0 * (1.0 + y / 5.0 * (1.0 + y / 6.0 * (1.0 + y / 7.0
    * (1.0 + y / 8.0 * (1.0 + y / 9.0 * (1.0 + y / 10.0)))))))));
}
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
  let om1 = pf(8u);
  let om2 = pf(9u);
  let mi = beta1 * m[i] + om1 * g;
  let vi = beta2 * v[i] + om2 * g * g;
  let mx = select(vmax[i], vi, vi > vmax[i] || vi != vi);
  new_m[i] = mi;
  new_v[i] = vi;
  new_vmax[i] = mx;
  let denom = sqrt(select(vi, mx, pu(1u) != 0u)) / sqrt(oneMinusPow(om2, t)) + pf(6u);
  new_param[i] = p - lr / oneMinusPow(om1, t) * (mi / denom);
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
      .f32(1 - beta1)
      .f32(1 - beta2)
      .data(WORDS);
    const buffers = [ins.param, ins.grad, ins.exp_avg, ins.exp_avg_sq, ins.max_exp_avg_sq, ins.step, ...out];
    if (ins.param.size > 0) launch(gpu, pipeline, buffers, params, ins.param.size, 'adam');
    return out;
  };
};
