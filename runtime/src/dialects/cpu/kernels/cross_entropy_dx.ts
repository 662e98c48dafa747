// CPU kernel of raf.op.cross_entropy_dx (specs/nn/cross_entropy_dx.yaml): (softmax(x) - onehot(target)) · dy / N.

import type { CrossEntropyDxKernel } from '../../../generated/bridge/cross_entropy_dx.ts';
import { allocOut, finish } from '../support.ts';
import { rowLogSumExp } from './cross_entropy.ts';
import { classIndex } from './nll_loss.ts';

export const crossEntropyDxCpu: CrossEntropyDxKernel = ({ x, target, dy }, _attrs, out) => {
  const dx = allocOut(out);
  const xs = x.dataSync();
  const dxs = dx.dataSync();
  const ts = target.dataSync();
  const [n, c] = x.shape as [number, number];
  const g = dy.dataSync()[0]! / n;
  for (let i = 0; i < n; i++) {
    const lse = rowLogSumExp(xs, i * c, c);
    for (let k = 0; k < c; k++) dxs[i * c + k] = Math.exp(xs[i * c + k]! - lse) * g;
    dxs[i * c + classIndex('cross_entropy_dx', ts, i, c)]! -= g;
  }
  return finish(dx);
};
