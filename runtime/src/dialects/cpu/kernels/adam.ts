// CPU kernel of raf.op.adam (specs/optim/adam.yaml): one step of torch.optim.Adam's documented update (AdamW's with
// decoupled_weight_decay), per element in float64 and stored in the parameter's dtype. Moments are read back after
// they are stored, so a float32 step uses float32 moments as torch does.

import type { AdamKernel } from '../../../generated/bridge/adam.ts';
import { allocOut, finish } from '../support.ts';

export const adamCpu: AdamKernel = (
  { param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step },
  { lr, beta1, beta2, eps, weight_decay, amsgrad, decoupled_weight_decay },
  outs,
) => {
  const [np, nm, nv, nmax] = outs.map((o) => allocOut(o));
  const P = param.dataSync();
  const G = grad.dataSync();
  const M = exp_avg.dataSync();
  const V = exp_avg_sq.dataSync();
  const MX = max_exp_avg_sq.dataSync();
  const NP = np!.dataSync();
  const NM = nm!.dataSync();
  const NV = nv!.dataSync();
  const NMX = nmax!.dataSync();
  const t = Number(step.dataSync()[0]);
  const stepSize = lr / (1 - beta1 ** t);
  const bc2Sqrt = Math.sqrt(1 - beta2 ** t);
  const decay = decoupled_weight_decay ? 1 - lr * weight_decay : 1;
  const l2 = decoupled_weight_decay ? 0 : weight_decay;
  for (let i = 0; i < P.length; i++) {
    const p = P[i]! * decay;
    const g = G[i]! + l2 * P[i]!;
    NM[i] = beta1 * M[i]! + (1 - beta1) * g;
    NV[i] = beta2 * V[i]! + (1 - beta2) * g * g;
    const v = NV[i]!;
    // The running maximum is kept whether or not amsgrad reads it, so the op has one set of outputs.
    NMX[i] = v > MX[i]! || Number.isNaN(v) ? v : MX[i]!;
    const denom = Math.sqrt(amsgrad ? NMX[i]! : v) / bc2Sqrt + eps;
    NP[i] = p - stepSize * (NM[i]! / denom);
  }
  return [finish(np!), finish(nm!), finish(nv!), finish(nmax!)];
};
