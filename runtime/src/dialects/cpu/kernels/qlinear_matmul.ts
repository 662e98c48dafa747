// CPU kernel of raf.op.qlinear_matmul (specs/quant/qlinear_matmul.yaml), as ONNX's reference computes it: the exact
// int32 product C of the centred operands, the multiplier a_scale * b_scale / y_scale in the scales' dtype (float32 or
// float16), then C * multiplier + y_zero_point in float64, rounded half to even and saturated.

import type { QlinearMatmulKernel } from '../../../generated/bridge/qlinear_matmul.ts';
import { matmulParamShape, quantRange } from '../../../ops/quant.ts';
import { sizeOf } from '../../../shape.ts';
import type { Tensor } from '../../../tensor.ts';
import { integerMatmul, roundHalfEven, roundTo } from '../quant.ts';
import { allocOut, broadcastIndex } from '../support.ts';

const OP = 'qlinear_matmul';

export const qlinearMatmulCpu: QlinearMatmulKernel = (inputs, _attrs, out) => {
  const { a, b, a_scale, b_scale, y_scale, y_zero_point } = inputs;
  const { sums, g } = integerMatmul(OP, a, b, inputs.a_zero_point, inputs.b_zero_point);
  const [lo, hi] = quantRange(OP, 'y_zero_point', out.dtype);
  // Each parameter's index per element of the product [..., m, n]; null when it has one element.
  const reader = (name: string, p: Tensor, side: 'a' | 'b') => {
    const v = p.dataSync();
    if (sizeOf(p.shape) === 1) {
      const v0 = v[0]!;
      return () => v0;
    }
    const idx = broadcastIndex(matmulParamShape(OP, name, p.shape, g, side), g.full)!;
    return (i: number) => v[idx[i]!]!;
  };
  const as = reader('a_scale', a_scale, 'a');
  const bs = reader('b_scale', b_scale, 'b');
  const ys = reader('y_scale', y_scale, 'a');
  const yz = reader('y_zero_point', y_zero_point, 'a');
  const round = roundTo(a_scale.dtype);
  const y = allocOut(out);
  const yv = y.dataSync();
  for (let i = 0; i < sums.length; i++) {
    const q = roundHalfEven(sums[i]! * round(round(as(i) * bs(i)) / ys(i)) + yz(i));
    yv[i] = q < lo ? lo : q > hi ? hi : q;
  }
  return y;
};
