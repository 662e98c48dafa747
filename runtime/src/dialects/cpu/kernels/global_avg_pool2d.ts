// CPU kernel of raf.op.global_avg_pool2d (specs/nn/global_avg_pool2d.yaml): one float64 sum per (n, c) plane.

import type { GlobalAvgPool2dKernel } from '../../../generated/bridge/global_avg_pool2d.ts';
import { allocOut, finish } from '../support.ts';

export const globalAvgPool2dCpu: GlobalAvgPool2dKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const plane = x.shape[2]! * x.shape[3]!;
  for (let p = 0; p < ys.length; p++) {
    let s = 0;
    for (let i = p * plane; i < (p + 1) * plane; i++) s += xs[i]!;
    ys[p] = s / plane;
  }
  return finish(y);
};
