// CPU kernel of raf.op.avg_pool2d (specs/nn/avg_pool2d.yaml): window sums in float64 over the counted positions.

import type { AvgPool2dKernel } from '../../../generated/bridge/avg_pool2d.ts';
import { padding4, window2d } from '../../../ops/window.ts';
import { forEachWindow, windowArea } from '../pool.ts';
import { allocOut, finish } from '../support.ts';

export const avgPool2dCpu: AvgPool2dKernel = ({ x }, { kernel, stride, padding, count_include_pad }, out) => {
  const y = allocOut(out);
  const g = window2d('avg_pool2d', x.shape, kernel, stride, padding);
  const [, , pb, pr] = padding4('avg_pool2d', padding);
  const xs = x.dataSync();
  const ys = y.dataSync();
  forEachWindow(x.shape, g, (yi, taps) => {
    let sum = 0;
    for (const t of taps) sum += xs[t]!;
    ys[yi] = sum / (count_include_pad ? windowArea(g, x.shape, pb, pr, yi) : taps.length);
  });
  return finish(y);
};
