// CPU kernel of raf.op.conv_transpose (specs/nn/conv_transpose.yaml): conv2d's backward for x (each tap sends x · w to
// the output position the forward conv would have read), 1-D as height 1, then the bias per output channel.

import type { ConvTransposeKernel } from '../../../generated/bridge/conv_transpose.ts';
import { convTransposeGeometry } from '../../../ops/conv_transpose.rule.ts';
import { window2d } from '../../../ops/window.ts';
import { convDims, forEachTap } from '../conv.ts';
import { allocOut, finish } from '../support.ts';

export const convTransposeCpu: ConvTransposeKernel = (
  { x, w, bias },
  { stride, padding, output_padding, dilation, groups, auto_pad, output_shape },
  out,
) => {
  const geo = convTransposeGeometry({
    x,
    w,
    stride,
    padding,
    output_padding,
    dilation,
    groups,
    auto_pad,
    output_shape,
  });
  const y = allocOut(out);
  const g = window2d('conv_transpose', geo.out4, geo.w4.slice(2), geo.stride, geo.padding, geo.dilation);
  const xs = x.dataSync();
  const ws = w.dataSync();
  const acc = new Float64Array(y.size);
  forEachTap(convDims(geo.out4, geo.w4, groups), g, (xi, yi, wi) => (acc[yi]! += xs[xi]! * ws[wi]!));
  if (bias) {
    const bs = bias.dataSync();
    const [, o, h, wd] = geo.out4 as [number, number, number, number];
    const plane = h * wd;
    for (let i = 0; i < acc.length; i++) acc[i]! += bs[Math.floor(i / plane) % o]!;
  }
  y.dataSync().set(acc);
  return finish(y);
};
