// CPU kernel of raf.op.max_pool2d (specs/nn/max_pool2d.yaml): padding never wins, so it acts as -inf.

import type { MaxPool2dKernel } from '../../../generated/bridge/max_pool2d.ts';
import { window2d } from '../../../ops/window.ts';
import { forEachWindow } from '../pool.ts';
import { allocOut, finish } from '../support.ts';

export const maxPool2dCpu: MaxPool2dKernel = ({ x }, { kernel, stride, padding }, out) => {
  const y = allocOut(out);
  const g = window2d('max_pool2d', x.shape, kernel, stride, padding);
  const xs = x.dataSync();
  const ys = y.dataSync();
  forEachWindow(x.shape, g, (yi, taps) => {
    let best = -Infinity;
    for (const t of taps) best = Math.max(best, xs[t]!);
    ys[yi] = best;
  });
  return finish(y);
};
