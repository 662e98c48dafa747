// Wasm kernel of raf.op.adam (specs/optim/adam.yaml): torch.optim.Adam's update (AdamW's with
// decoupled_weight_decay) per element (as/optim.ts), in f64 and stored in the parameter's width, so it equals the CPU
// dialect's bit for bit. Outputs stay resident in wasm memory.

import type { AdamKernel } from '../../../generated/bridge/adam.ts';
import { callArena } from '../module.ts';
import { optimKernels } from '../optim.ts';
import { inPtr, outBlock, widthOf } from '../support.ts';

export const adamWasm: AdamKernel = (
  { param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step },
  { lr, beta1, beta2, eps, weight_decay, amsgrad, decoupled_weight_decay },
  outs,
) => {
  const width = widthOf(outs[0]!.dtype)!;
  const arena = callArena();
  const [p, g, m, v, mx] = [param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq].map((t) => inPtr(arena, width, t));
  const [np, nm, nv, nmx] = outs.map((o) => outBlock(arena, width, o));
  const t = Number(step.dataSync()[0]);
  // The same scalars, computed the same way, as the CPU kernel's.
  const stepSize = lr / (1 - beta1 ** t);
  const bc2Sqrt = Math.sqrt(1 - beta2 ** t);
  const decay = decoupled_weight_decay ? 1 - lr * weight_decay : 1;
  const l2 = decoupled_weight_decay ? 0 : weight_decay;
  optimKernels()[`adam_${width}`](
    p!,
    g!,
    m!,
    v!,
    mx!,
    np!.ptr,
    nm!.ptr,
    nv!.ptr,
    nmx!.ptr,
    param.size,
    beta1,
    beta2,
    eps,
    stepSize,
    bc2Sqrt,
    decay,
    l2,
    amsgrad ? 1 : 0,
  );
  return [np!.tensor(), nm!.tensor(), nv!.tensor(), nmx!.tensor()];
};
