// CPU kernel of raf.op.sgd (specs/optim/sgd.yaml): one step of torch.optim.SGD's documented update, per element in
// float64 and stored in the parameter's dtype. The momentum buffer is read back after it is stored, so a float32
// step uses the float32 buffer as torch does.

import type { SgdKernel } from '../../../generated/bridge/sgd.ts';
import { allocOut, finish } from '../support.ts';

export const sgdCpu: SgdKernel = (
  { param, grad, momentum_buffer, step },
  { lr, momentum, dampening, weight_decay, nesterov },
  outs,
) => {
  const newParam = allocOut(outs[0]!);
  const newBuf = allocOut(outs[1]!);
  const p = param.dataSync();
  const g = grad.dataSync();
  const buf = momentum_buffer.dataSync();
  const np = newParam.dataSync();
  const nb = newBuf.dataSync();
  // torch starts the buffer as a copy of the first step's gradient (its buffer is None then).
  const first = Number(step.dataSync()[0]) === 1;
  for (let i = 0; i < p.length; i++) {
    let d = g[i]! + weight_decay * p[i]!;
    if (momentum !== 0) {
      nb[i] = first ? d : momentum * buf[i]! + (1 - dampening) * d;
      const b = nb[i]!;
      d = nesterov ? d + momentum * b : b;
    } else {
      nb[i] = d; // no momentum: the buffer output is the step's direction (the next step does not read it)
    }
    np[i] = p[i]! - lr * d;
  }
  return [finish(newParam), finish(newBuf)];
};
