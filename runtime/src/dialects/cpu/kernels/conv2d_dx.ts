// CPU kernel of raf.op.conv2d_dx (specs/nn/conv2d_dx.yaml): each tap sends dy · w back to the input position it read.

import type { Conv2dDxKernel } from '../../../generated/bridge/conv2d_dx.ts';
import { window2d } from '../../../ops/window.ts';
import { convDims, forEachTap } from '../conv.ts';
import { allocOut, finish } from '../support.ts';

export const conv2dDxCpu: Conv2dDxKernel = ({ x, w, dy }, { stride, padding, dilation, groups }, out) => {
  const dx = allocOut(out);
  const g = window2d('conv2d_dx', x.shape, w.shape.slice(2), stride, padding, dilation);
  const ws = w.dataSync();
  const dys = dy.dataSync();
  const acc = new Float64Array(dx.size);
  forEachTap(convDims(x.shape, w.shape, groups), g, (yi, xi, wi) => (acc[xi]! += dys[yi]! * ws[wi]!));
  dx.dataSync().set(acc);
  return finish(dx);
};
