// CPU kernel of raf.op.gather_elements_dx (specs/tensor/gather_elements_dx.yaml): scatter-add, so repeated indices accumulate.

import type { GatherElementsDxKernel } from '../../../generated/bridge/gather_elements_dx.ts';
import { forEachElementGather } from '../elements.ts';
import { allocOut, finish } from '../support.ts';
import { checkElementGrad } from '../../../ops/gather_elements.rule.ts';

export const gatherElementsDxCpu: GatherElementsDxKernel = ({ x, indices, dy }, { axis }, out) => {
  checkElementGrad(x, indices, dy, axis);
  const dx = allocOut(out);
  const dys = dy.dataSync();
  const acc = new Float64Array(dx.size);
  forEachElementGather('gather_elements_dx', x, indices, axis, (j, xi) => (acc[xi]! += dys[j]!));
  dx.dataSync().set(acc);
  return finish(dx);
};
