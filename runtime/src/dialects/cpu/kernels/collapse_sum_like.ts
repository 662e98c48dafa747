// CPU kernel of raf.op.collapse_sum_like (specs/reduce/collapse_sum_like.yaml): each x element adds into the output
// element it broadcasts from.

import type { CollapseSumLikeKernel } from '../../../generated/bridge/collapse_sum_like.ts';
import { allocOut, broadcastIndex, finish } from '../support.ts';

export const collapseSumLikeCpu: CollapseSumLikeKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const from = broadcastIndex(out.shape, x.shape);
  for (let i = 0; i < xs.length; i++) ys[from ? from[i]! : i]! += xs[i]!;
  return finish(y);
};
