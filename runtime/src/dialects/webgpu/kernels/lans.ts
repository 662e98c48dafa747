// WebGPU kernel of raf.op.lans (specs/optim/lans.yaml): RAF's LANS update for one parameter in float32. Its norms are
// of the whole tensor, so one workgroup does the whole parameter in three passes over it: the norms of grad and
// param, then the moments (stored) with the norms of the two update directions, then the new parameter (the
// directions recomputed from the stored moments, as the CPU kernel reads its moments back). step may be a float32 or
// int32 tensor (one pipeline each); the hyperparameters are uniforms.

import type { LansKernel } from '../../../generated/bridge/lans.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { launch, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

// n, bias_correction, grad_averaging, mode, normalize_grad, lr, beta1, beta2, eps, weight_decay, then 1 - beta1,
// 1 - beta2, ln(beta1) and ln(beta2) computed in float64 on the host: 1 - beta2 in float32 arithmetic loses 1e-5 of
// its value at beta2 = 0.999, and so would 1 - pow(beta2, t).
const WORDS = 14;
const BUFFERS = 8;
const LANES = 256;

const source = (stepType: 'f32' | 'i32') => `@group(0) @binding(0) var<storage, read> param: array<f32>;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read> m: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read> step: array<${stepType}>;
@group(0) @binding(5) var<storage, read_write> new_param: array<f32>;
@group(0) @binding(6) var<storage, read_write> new_m: array<f32>;
@group(0) @binding(7) var<storage, read_write> new_v: array<f32>;
${paramsWgsl(8, WORDS)}
// One scratch array per pair of sums: a later reduction never overwrites the one before it, which a lane may still be
// reading (Mesa's llvmpipe has let such a read see the next reduction's partials; see row-fold.ts).
${[0, 1]
  .map(
    (k) => `var<workgroup> red${k}: array<vec2<f32>, ${LANES}>;
// The workgroup's sums of x (one pair per lane), read by every lane.
fn total${k}(lane: u32, x: vec2<f32>) -> vec2<f32> {
  red${k}[lane] = x;
  workgroupBarrier();
  for (var s = ${LANES / 2}u; s > 0u; s = s >> 1u) {
    if (lane < s) { red${k}[lane] = red${k}[lane] + red${k}[lane + s]; }
    workgroupBarrier();
  }
  return red${k}[0];
}`,
  )
  .join('\n')}
// 1 - beta^t from ln(beta) (-inf at beta = 0): near 1 by a series of -expm1(x), x = t ln(beta), as 1 - exp(x) would
// cancel away most of its digits.
fn oneMinusPow(lnBeta: f32, t: f32) -> f32 {
  let x = t * lnBeta;
  let series = -x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0))));
  return select(1.0 - exp(x), series, x > -0.01);
}
@compute @workgroup_size(${LANES})
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  let lane = lid.x;
  let n = pu(0u);
  let mode = pu(3u) != 0u;
  let lr = pf(5u);
  let beta1 = pf(6u);
  let beta2 = pf(7u);
  let eps = pf(8u);
  let wd = pf(9u);
  let beta3 = select(1.0, pf(10u), pu(2u) != 0u);
  let oneMinusBeta2 = pf(11u);
  let t = f32(step[0]);
  let c1 = select(1.0, oneMinusPow(pf(12u), t), pu(1u) != 0u);
  let c2 = select(1.0, oneMinusPow(pf(13u), t), pu(1u) != 0u);
  var g2 = 0.0;
  var p2 = 0.0;
  for (var i = lane; i < n; i = i + ${LANES}u) {
    g2 = g2 + grad[i] * grad[i];
    p2 = p2 + param[i] * param[i];
  }
  let gp = sqrt(total0(lane, vec2<f32>(g2, p2)));
  let gNorm = gp.x;
  let pNorm = gp.y;
  let normalize = pu(4u) != 0u && gNorm != 0.0;
  var u2 = 0.0;
  var q2 = 0.0;
  for (var i = lane; i < n; i = i + ${LANES}u) {
    let p = param[i];
    let s = select(grad[i], grad[i] / (gNorm + eps), normalize) + select(wd * p, 0.0, mode);
    let mi = beta1 * m[i] + beta3 * s;
    let vi = beta2 * v[i] + oneMinusBeta2 * s * s;
    new_m[i] = mi;
    new_v[i] = vi;
    let d = sqrt(vi / c2) + eps;
    let decay = select(0.0, wd * p, mode);
    let u = mi / c1 / d + decay;
    let q = s / d + decay;
    u2 = u2 + u * u;
    q2 = q2 + q * q;
  }
  let uq = sqrt(total1(lane, vec2<f32>(u2, q2)));
  let uNorm = uq.x;
  let qNorm = uq.y;
  // The trust ratios: the parameter's norm over the update's, or 1 when either is 0.
  let rm = beta1 * lr * select(1.0, pNorm / uNorm, uNorm != 0.0 && pNorm != 0.0);
  let rq = beta3 * lr * select(1.0, pNorm / qNorm, qNorm != 0.0 && pNorm != 0.0);
  for (var i = lane; i < n; i = i + ${LANES}u) {
    let p = param[i];
    let s = select(grad[i], grad[i] / (gNorm + eps), normalize) + select(wd * p, 0.0, mode);
    let d = sqrt(new_v[i] / c2) + eps;
    let decay = select(0.0, wd * p, mode);
    let u = new_m[i] / c1 / d + decay;
    let q = s / d + decay;
    new_param[i] = p - rm * u - rq * q;
  }
}`;

export const lansWebgpu: WebGpuBuilder<LansKernel> = (_attrs, outs, inputs) => {
  const gpu = requireGpu();
  const { param, grad, exp_avg, exp_avg_sq, step } = inputs;
  const f32 = [param, grad, exp_avg, exp_avg_sq, ...outs].every((t) => t.dtype === 'float32');
  if (!f32 || (step.dtype !== 'float32' && step.dtype !== 'int32')) return null;
  if (gpu.device.limits.maxStorageBuffersPerShaderStage < BUFFERS) return null;
  if (gpu.device.limits.maxComputeInvocationsPerWorkgroup < LANES) return null;
  const stepType = step.dtype === 'float32' ? 'f32' : 'i32';
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('lans', stepType), () => source(stepType));
  return (ins, a, kouts): Tensor[] => {
    const out = kouts.map((o) => allocGpu(gpu, o));
    const params = new Params()
      .u32(ins.param.size)
      .u32(a.bias_correction ? 1 : 0)
      .u32(a.grad_averaging ? 1 : 0)
      .u32(a.mode ? 1 : 0)
      .u32(a.normalize_grad ? 1 : 0)
      .f32(a.lr)
      .f32(a.beta1)
      .f32(a.beta2)
      .f32(a.eps)
      .f32(a.weight_decay)
      .f32(1 - a.beta1)
      .f32(1 - a.beta2)
      .f32(Math.log(a.beta1))
      .f32(Math.log(a.beta2))
      .data(WORDS);
    const buffers = [ins.param, ins.grad, ins.exp_avg, ins.exp_avg_sq, ins.step, ...out];
    // One workgroup: its lanes stride over the whole parameter (the norms need every element).
    if (ins.param.size > 0) launch(gpu, pipeline, buffers, params, LANES, 'lans', LANES);
    return out;
  };
};
