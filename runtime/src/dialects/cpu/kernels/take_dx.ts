// CPU kernel of raf.op.take_dx (specs/tensor/take_dx.yaml): scatter-add, so repeated indices accumulate.

import type { TakeDxKernel } from '../../../generated/bridge/take_dx.ts';
import { forEachGather } from '../gather.ts';
import { allocOut, finish } from '../support.ts';

export const takeDxCpu: TakeDxKernel = ({ x, indices, dy }, { axis }, out) => {
  const dx = allocOut(out);
  const dys = dy.dataSync();
  const acc = new Float64Array(dx.size);
  forEachGather('take_dx', x, indices, axis, (yi, xi) => (acc[xi]! += dys[yi]!));
  dx.dataSync().set(acc);
  return finish(dx);
};
