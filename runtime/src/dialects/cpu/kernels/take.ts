// CPU kernel of raf.op.take (specs/tensor/take.yaml).

import type { TakeKernel } from '../../../generated/bridge/take.ts';
import { gatherCopy } from '../gather.ts';
import { allocOut } from '../support.ts';

export const takeCpu: TakeKernel = ({ x, indices }, { axis }, out) => {
  const y = allocOut(out);
  gatherCopy('take', x, indices, axis, y.dataSync());
  return y;
};
