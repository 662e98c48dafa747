// CPU kernel of raf.op.max_pool2d_dx (specs/nn/max_pool2d_dx.yaml): each window's dy goes to its first maximum, found again from x.

import type { MaxPool2dDxKernel } from '../../../generated/bridge/max_pool2d_dx.ts';
import { window2d } from '../../../ops/window.ts';
import { forEachWindow } from '../pool.ts';
import { allocOut, finish } from '../support.ts';

export const maxPool2dDxCpu: MaxPool2dDxKernel = ({ x, dy }, { kernel, stride, padding }, out) => {
  const dx = allocOut(out);
  const g = window2d('max_pool2d_dx', x.shape, kernel, stride, padding);
  const xs = x.dataSync();
  const dys = dy.dataSync();
  const acc = new Float64Array(dx.size);
  forEachWindow(x.shape, g, (yi, taps) => {
    let arg = -1;
    for (const t of taps) if (arg < 0 || xs[t]! > xs[arg]!) arg = t;
    if (arg >= 0) acc[arg]! += dys[yi]!;
  });
  dx.dataSync().set(acc);
  return finish(dx);
};
