// CPU kernel of raf.op.gather_elements (specs/tensor/gather_elements.yaml).

import type { GatherElementsKernel } from '../../../generated/bridge/gather_elements.ts';
import { forEachElementGather } from '../elements.ts';
import { allocOut } from '../support.ts';

export const gatherElementsCpu: GatherElementsKernel = ({ x, indices }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  forEachElementGather('gather_elements', x, indices, axis, (j, xi) => (ys[j] = xs[xi]!));
  return y;
};
