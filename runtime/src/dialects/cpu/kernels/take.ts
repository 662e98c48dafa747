// CPU kernel of raf.op.take (specs/tensor/take.yaml).

import type { TakeKernel } from '../../../generated/bridge/take.ts';
import { forEachGather } from '../gather.ts';
import { allocOut } from '../support.ts';

export const takeCpu: TakeKernel = ({ x, indices }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  forEachGather('take', x, indices, axis, (yi, xi) => (ys[yi] = xs[xi]!));
  return y;
};
