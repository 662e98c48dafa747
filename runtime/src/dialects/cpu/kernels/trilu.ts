// CPU kernel of raf.op.trilu (specs/tensor/trilu.yaml): each matrix of the last two axes copied where j - i is on the
// kept side of k (j - i >= k for the upper triangle, j - i <= k for the lower), zero elsewhere.

import type { TriluKernel } from '../../../generated/bridge/trilu.ts';
import { allocOut } from '../support.ts';

export const triluCpu: TriluKernel = ({ x }, { k, upper }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const rank = x.shape.length;
  const [rows, cols] = [x.shape[rank - 2]!, x.shape[rank - 1]!];
  for (let at = 0; at < xs.length; at++) {
    const j = at % cols;
    const i = Math.floor(at / cols) % rows;
    if (upper ? j - i >= k : j - i <= k) ys[at] = xs[at]!;
  }
  return y;
};
