// CPU kernel of raf.op.conv_integer (specs/quant/conv_integer.yaml): the exact convolution of the centred operands
// (integerConv: im2col and the exact integer product), wrapped to int32.

import type { ConvIntegerKernel } from '../../../generated/bridge/conv_integer.ts';
import { convGeometry } from '../../../ops/quant.ts';
import { integerConv, toInt32 } from '../quant.ts';
import { allocOut } from '../support.ts';

export const convIntegerCpu: ConvIntegerKernel = ({ x, w, x_zero_point, w_zero_point }, attrs, out) => {
  const { stride, padding, dilation, groups, auto_pad } = attrs;
  const g = convGeometry('conv_integer', { x, w, stride, padding, dilation, groups, auto_pad });
  const y = allocOut(out);
  toInt32(integerConv(x, w, x_zero_point, w_zero_point, g), y.dataSync() as Int32Array);
  return y;
};
