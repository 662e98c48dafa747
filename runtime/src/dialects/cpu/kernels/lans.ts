// CPU kernel of raf.op.lans (specs/optim/lans.yaml): RAF's LANS update for one parameter, in float64 and stored in
// the parameter's dtype. The norms are of the whole tensor; the moments are read back after they are stored, so a
// float32 step uses float32 moments, as the Adam kernel does.

import type { LansKernel } from '../../../generated/bridge/lans.ts';
import { allocOut, finish } from '../support.ts';

/** The LANS arithmetic over plain arrays. */
export function lansUpdate(
  P: ArrayLike<number>,
  G: ArrayLike<number>,
  M: ArrayLike<number>,
  V: ArrayLike<number>,
  NP: { [i: number]: number; length: number },
  NM: { [i: number]: number; length: number },
  NV: { [i: number]: number; length: number },
  t: number,
  o: {
    lr: number;
    beta1: number;
    beta2: number;
    eps: number;
    bias_correction: boolean;
    weight_decay: number;
    grad_averaging: boolean;
    mode: boolean;
    normalize_grad: boolean;
  },
): void {
  const n = P.length;
  const { lr, beta1, beta2, eps, weight_decay: wd, mode } = o;
  const beta3 = o.grad_averaging ? 1 - beta1 : 1;
  const c1 = o.bias_correction ? 1 - beta1 ** t : 1;
  const c2 = o.bias_correction ? 1 - beta2 ** t : 1;
  let g2 = 0;
  let p2 = 0;
  for (let i = 0; i < n; i++) {
    g2 += G[i]! * G[i]!;
    p2 += P[i]! * P[i]!;
  }
  const gNorm = Math.sqrt(g2);
  const pNorm = Math.sqrt(p2);
  const normalize = o.normalize_grad && gNorm !== 0;
  const u = new Float64Array(n);
  const q = new Float64Array(n);
  let u2 = 0;
  let q2 = 0;
  for (let i = 0; i < n; i++) {
    let s = normalize ? G[i]! / (gNorm + eps) : G[i]!;
    if (!mode) s += wd * P[i]!;
    NM[i] = beta1 * M[i]! + beta3 * s;
    NV[i] = beta2 * V[i]! + (1 - beta2) * s * s;
    const d = Math.sqrt(NV[i]! / c2) + eps;
    const decay = mode ? wd * P[i]! : 0;
    u[i] = NM[i]! / c1 / d + decay;
    q[i] = s / d + decay;
    u2 += u[i]! * u[i]!;
    q2 += q[i]! * q[i]!;
  }
  const uNorm = Math.sqrt(u2);
  const qNorm = Math.sqrt(q2);
  // The trust ratios: the parameter's norm over the update's, or 1 when either is 0.
  const rm = beta1 * (uNorm !== 0 && pNorm !== 0 ? lr * (pNorm / uNorm) : lr);
  const rq = beta3 * (qNorm !== 0 && pNorm !== 0 ? lr * (pNorm / qNorm) : lr);
  for (let i = 0; i < n; i++) NP[i] = P[i]! - rm * u[i]! - rq * q[i]!;
}

export const lansCpu: LansKernel = ({ param, grad, exp_avg, exp_avg_sq, step }, attrs, outs) => {
  const [np, nm, nv] = outs.map((o) => allocOut(o));
  lansUpdate(
    param.dataSync(),
    grad.dataSync(),
    exp_avg.dataSync(),
    exp_avg_sq.dataSync(),
    np!.dataSync() as Float64Array,
    nm!.dataSync() as Float64Array,
    nv!.dataSync() as Float64Array,
    Number(step.dataSync()[0]),
    attrs,
  );
  return [finish(np!), finish(nm!), finish(nv!)];
};
