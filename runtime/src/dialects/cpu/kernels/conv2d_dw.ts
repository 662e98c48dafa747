// CPU kernel of raf.op.conv2d_dw (specs/nn/conv2d_dw.yaml): each tap adds dy · x to the weight it used.

import type { Conv2dDwKernel } from '../../../generated/bridge/conv2d_dw.ts';
import { window2d } from '../../../ops/window.ts';
import { convDims, forEachTap } from '../conv.ts';
import { allocOut, finish } from '../support.ts';

export const conv2dDwCpu: Conv2dDwKernel = ({ x, w, dy }, { stride, padding, dilation, groups }, out) => {
  const dw = allocOut(out);
  const g = window2d('conv2d_dw', x.shape, w.shape.slice(2), stride, padding, dilation);
  const xs = x.dataSync();
  const dys = dy.dataSync();
  const acc = new Float64Array(dw.size);
  forEachTap(convDims(x.shape, w.shape, groups), g, (yi, xi, wi) => (acc[wi]! += dys[yi]! * xs[xi]!));
  dw.dataSync().set(acc);
  return finish(dw);
};
