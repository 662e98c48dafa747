// Hand-written gradient of raf.op.conv_transpose (specs/nn/conv_transpose.yaml). conv_transpose is conv2d's backward
// for x, so its gradient is conv2d-like: for x the forward conv of dy with w, for w conv2d's weight gradient with the
// roles of input and output gradient swapped, for the bias the sum of dy over batch and space. 1-D runs as height 1.

import type { ConvTransposeGradContext, ConvTransposeGradResult } from '../generated/grad/conv_transpose.ts';
import { conv2d } from '../generated/api/conv2d.ts';
import { conv2dDw } from '../generated/api/conv2d_dw.ts';
import { stridedSlice } from '../generated/api/strided_slice.ts';
import { reshape } from '../generated/api/reshape.ts';
import { sum } from '../generated/api/sum.ts';
import { convTransposeGeometry } from './conv_transpose.rule.ts';

export function convTransposeGradImpl({
  x,
  w,
  bias,
  dy,
  stride,
  padding,
  output_padding,
  dilation,
  groups,
  auto_pad,
  output_shape,
}: ConvTransposeGradContext): ConvTransposeGradResult {
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
  let dy4 = reshape(dy, geo.out4);
  // Where output_shape adds zeros past the full output (a negative end pad), nothing there depends on x or w.
  const [, , bottom, right] = geo.padding as [number, number, number, number];
  if (bottom < 0 || right < 0)
    dy4 = stridedSlice(
      dy4,
      [0, 0],
      [geo.out4[2]! + Math.min(0, bottom), geo.out4[3]! + Math.min(0, right)],
      null,
      [2, 3],
    );
  const pads = geo.padding.map((p) => Math.max(0, p));
  const w4 = reshape(w, geo.w4);
  const win = [geo.stride, pads, geo.dilation, groups] as const;
  return {
    x: reshape(conv2d(dy4, w4, ...win), x.shape),
    w: reshape(conv2dDw(dy4, w4, reshape(x, geo.x4), ...win), w.shape),
    bias: bias ? sum(dy, geo.rank === 1 ? [0, 2] : [0, 2, 3]) : null,
  };
}
