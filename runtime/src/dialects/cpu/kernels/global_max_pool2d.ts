// CPU kernel of raf.op.global_max_pool2d (specs/nn/global_max_pool2d.yaml): the maximum of each (n, c) plane; NaN wins.

import type { GlobalMaxPool2dKernel } from '../../../generated/bridge/global_max_pool2d.ts';
import { allocOut, finish } from '../support.ts';

export const globalMaxPool2dCpu: GlobalMaxPool2dKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const plane = x.shape[2]! * x.shape[3]!;
  for (let p = 0; p < ys.length; p++) {
    let m = -Infinity;
    for (let i = p * plane; i < (p + 1) * plane; i++) {
      const v = xs[i]!;
      if (v > m || Number.isNaN(v)) m = v;
      if (Number.isNaN(m)) break;
    }
    ys[p] = m;
  }
  return finish(y);
};
