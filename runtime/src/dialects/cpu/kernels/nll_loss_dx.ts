// CPU kernel of raf.op.nll_loss_dx (specs/nn/nll_loss_dx.yaml): -dy / N at each picked class, zero elsewhere.

import type { NllLossDxKernel } from '../../../generated/bridge/nll_loss_dx.ts';
import { allocOut, finish } from '../support.ts';
import { classIndex } from './nll_loss.ts';

export const nllLossDxCpu: NllLossDxKernel = ({ x, target, dy }, _attrs, out) => {
  const dx = allocOut(out);
  const dxs = dx.dataSync();
  const ts = target.dataSync();
  const [n, c] = x.shape as [number, number];
  const g = dy.dataSync()[0]! / n;
  for (let i = 0; i < n; i++) dxs[i * c + classIndex('nll_loss_dx', ts, i, c)] = -g;
  return finish(dx);
};
