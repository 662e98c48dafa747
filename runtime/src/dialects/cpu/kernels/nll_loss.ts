// CPU kernel of raf.op.nll_loss (specs/nn/nll_loss.yaml): mean of -x[n, target[n]].

import type { NllLossKernel } from '../../../generated/bridge/nll_loss.ts';
import { OpError } from '../../../errors.ts';
import { allocOut, finish } from '../support.ts';

/** target[n] as a checked class index (values are only known at run time, so the kernel checks them). */
export function classIndex(op: string, target: ArrayLike<number>, n: number, classes: number): number {
  const t = target[n]!;
  if (t < 0 || t >= classes)
    throw new OpError(op, `class index ${t} at position ${n} is outside [0, ${classes})`, 'target');
  return t;
}

export const nllLossCpu: NllLossKernel = ({ x, target }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ts = target.dataSync();
  const [n, c] = x.shape as [number, number];
  let sum = 0;
  for (let i = 0; i < n; i++) sum -= xs[i * c + classIndex('nll_loss', ts, i, c)]!;
  y.dataSync()[0] = sum / n;
  return finish(y);
};
