// CPU kernel of raf.op.avg_pool2d_dx (specs/nn/avg_pool2d_dx.yaml): each window's dy shared evenly by the positions it averaged.

import type { AvgPool2dDxKernel } from '../../../generated/bridge/avg_pool2d_dx.ts';
import { padding4, window2d } from '../../../ops/window.ts';
import { forEachWindow, windowArea } from '../pool.ts';
import { allocOut, finish } from '../support.ts';

export const avgPool2dDxCpu: AvgPool2dDxKernel = ({ x, dy }, { kernel, stride, padding, count_include_pad }, out) => {
  const dx = allocOut(out);
  const g = window2d('avg_pool2d_dx', x.shape, kernel, stride, padding);
  const [, , pb, pr] = padding4('avg_pool2d_dx', padding);
  const dys = dy.dataSync();
  const acc = new Float64Array(dx.size);
  forEachWindow(x.shape, g, (yi, taps) => {
    const share = dys[yi]! / (count_include_pad ? windowArea(g, x.shape, pb, pr, yi) : taps.length);
    for (const t of taps) acc[t]! += share;
  });
  dx.dataSync().set(acc);
  return finish(dx);
};
