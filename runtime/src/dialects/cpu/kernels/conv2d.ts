// CPU kernel of raf.op.conv2d (specs/nn/conv2d.yaml): direct convolution, accumulated in float64.

import type { Conv2dKernel } from '../../../generated/bridge/conv2d.ts';
import { window2d } from '../../../ops/window.ts';
import { convDims, forEachTap } from '../conv.ts';
import { allocOut, finish } from '../support.ts';

export const conv2dCpu: Conv2dKernel = ({ x, w }, { stride, padding, dilation, groups }, out) => {
  const y = allocOut(out);
  const g = window2d('conv2d', x.shape, w.shape.slice(2), stride, padding, dilation);
  const xs = x.dataSync();
  const ws = w.dataSync();
  const acc = new Float64Array(y.size);
  forEachTap(convDims(x.shape, w.shape, groups), g, (yi, xi, wi) => (acc[yi]! += xs[xi]! * ws[wi]!));
  y.dataSync().set(acc);
  return finish(y);
};
