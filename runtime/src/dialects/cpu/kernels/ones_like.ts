// CPU kernel of raf.op.ones_like (specs/tensor/ones_like.yaml): an output of x's shape and dtype filled with 1.

import type { OnesLikeKernel } from '../../../generated/bridge/ones_like.ts';
import { allocOut } from '../support.ts';

export const onesLikeCpu: OnesLikeKernel = (_inputs, _attrs, out) => {
  const y = allocOut(out);
  y.dataSync().fill(1);
  return y;
};
