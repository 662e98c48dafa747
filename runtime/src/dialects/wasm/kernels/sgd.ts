// Wasm kernel of raf.op.sgd (specs/optim/sgd.yaml): torch.optim.SGD's update per element (as/optim.ts), in f64 and
// stored in the parameter's width, so it equals the CPU dialect's bit for bit. Outputs stay resident in wasm memory.

import type { SgdKernel } from '../../../generated/bridge/sgd.ts';
import { callArena } from '../module.ts';
import { optimKernels } from '../optim.ts';
import { inPtr, outBlock, widthOf } from '../support.ts';

export const sgdWasm: SgdKernel = (
  { param, grad, momentum_buffer, step },
  { lr, momentum, dampening, weight_decay, nesterov },
  outs,
) => {
  const width = widthOf(outs[0]!.dtype)!;
  const arena = callArena();
  const [p, g, buf] = [param, grad, momentum_buffer].map((t) => inPtr(arena, width, t)) as [number, number, number];
  const [np, nb] = [outBlock(arena, width, outs[0]!), outBlock(arena, width, outs[1]!)];
  // torch starts the buffer as a copy of the first step's gradient (its buffer is None then).
  const first = Number(step.dataSync()[0]) === 1 ? 1 : 0;
  optimKernels()[`sgd_${width}`](
    p,
    g,
    buf,
    np.ptr,
    nb.ptr,
    param.size,
    lr,
    momentum,
    dampening,
    weight_decay,
    nesterov ? 1 : 0,
    first,
  );
  return [np.tensor(), nb.tensor()];
};
