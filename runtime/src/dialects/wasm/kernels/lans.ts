// Wasm kernel of raf.op.lans (specs/optim/lans.yaml): RAF's LANS update for one parameter (as/optim.ts), in f64 and
// stored in the parameter's width, in the CPU kernel's order of operations, so it equals the CPU dialect's bit for
// bit. Outputs stay resident in wasm memory; the two update directions live in f64 scratch for the call.

import type { LansKernel } from '../../../generated/bridge/lans.ts';
import { callArena } from '../module.ts';
import { optimKernels } from '../optim.ts';
import { allocFor, inPtr, outBlock, widthOf } from '../support.ts';

export const lansWasm: LansKernel = (
  { param, grad, exp_avg, exp_avg_sq, step },
  { lr, beta1, beta2, eps, bias_correction, weight_decay, grad_averaging, mode, normalize_grad },
  outs,
) => {
  const width = widthOf(outs[0]!.dtype)!;
  const arena = callArena();
  const [p, g, m, v] = [param, grad, exp_avg, exp_avg_sq].map((t) => inPtr(arena, width, t));
  const [np, nm, nv] = outs.map((o) => outBlock(arena, width, o));
  const [u, q] = [allocFor(arena, 'f64', param.size), allocFor(arena, 'f64', param.size)];
  const t = Number(step.dataSync()[0]);
  // The same scalars, computed the same way, as the CPU kernel's.
  const c1 = bias_correction ? 1 - beta1 ** t : 1;
  const c2 = bias_correction ? 1 - beta2 ** t : 1;
  const flags = (bias_correction ? 1 : 0) | (grad_averaging ? 2 : 0) | (mode ? 4 : 0) | (normalize_grad ? 8 : 0);
  optimKernels()[`lans_${width}`](
    p!,
    g!,
    m!,
    v!,
    np!.ptr,
    nm!.ptr,
    nv!.ptr,
    u,
    q,
    param.size,
    lr,
    beta1,
    beta2,
    eps,
    weight_decay,
    c1,
    c2,
    flags,
  );
  return [np!.tensor(), nm!.tensor(), nv!.tensor()];
};
