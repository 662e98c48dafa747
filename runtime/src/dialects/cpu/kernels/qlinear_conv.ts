// CPU kernel of raf.op.qlinear_conv (specs/quant/qlinear_conv.yaml), as ONNX's reference computes it: the exact int32
// convolution of the centred operands plus the bias, times x_scale * w_scale / y_scale (in the scales' dtype, per output
// channel when w_scale is), plus y_zero_point in float64, rounded half to even and saturated.

import type { QlinearConvKernel } from '../../../generated/bridge/qlinear_conv.ts';
import { convGeometry, quantRange } from '../../../ops/quant.ts';
import { integerConv, roundHalfEven, roundTo } from '../quant.ts';
import { allocOut } from '../support.ts';

const OP = 'qlinear_conv';

export const qlinearConvCpu: QlinearConvKernel = (inputs, attrs, out) => {
  const { x, w, x_scale, w_scale, y_scale, y_zero_point, bias } = inputs;
  const { stride, padding, dilation, groups, auto_pad } = attrs;
  const g = convGeometry(OP, { x, w, stride, padding, dilation, groups, auto_pad });
  const sums = integerConv(x, w, inputs.x_zero_point, inputs.w_zero_point, g);
  const [lo, hi] = quantRange(OP, 'y_zero_point', out.dtype);
  const round = roundTo(x_scale.dtype);
  const [xs, ys, yz] = [x_scale.dataSync()[0]!, y_scale.dataSync()[0]!, y_zero_point.dataSync()[0]!];
  const ws = w_scale.dataSync();
  const bv = bias ? bias.dataSync() : null;
  const per = ws.length > 1;
  const P = sums.length / (g.n * g.m);
  const y = allocOut(out);
  const yv = y.dataSync();
  for (let b = 0; b < g.n; b++)
    for (let m = 0; m < g.m; m++) {
      const mult = round(round(xs * ws[per ? m : 0]!) / ys);
      const add = bv ? bv[m]! : 0;
      const o = (b * g.m + m) * P;
      for (let p = 0; p < P; p++) {
        const q = roundHalfEven((sums[o + p]! + add) * mult + yz);
        yv[o + p] = q < lo ? lo : q > hi ? hi : q;
      }
    }
  return y;
};
