// CPU kernel of raf.op.dynamic_quantize_linear (specs/quant/dynamic_quantize_linear.yaml), in float32 step by step as
// ONNX's reference and onnxruntime compute it: the range [min(x, 0), max(x, 0)], scale = (max - min) / 255 (1 / 255 for
// an empty range), zero point = round_half_even(clamp(0 - min / scale, 0, 255)), y = clamp(round_half_even(x / scale)
// + zero point, 0, 255).
// An all-zero x takes the reference's scale 1 / 255 (onnxruntime's kernel gives 1 there; y and the zero point are 0
// either way, so the dequantized values agree).

import type { DynamicQuantizeLinearKernel } from '../../../generated/bridge/dynamic_quantize_linear.ts';
import { roundHalfEven } from '../quant.ts';
import { allocOut } from '../support.ts';

const f = Math.fround;

export const dynamicQuantizeLinearCpu: DynamicQuantizeLinearKernel = ({ x }, _attrs, outs) => {
  const xv = x.dataSync();
  let min = 0;
  let max = 0;
  for (let i = 0; i < xv.length; i++) {
    const v = xv[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const scale = f(f(max === min ? 1 : max - min) / 255);
  const initial = f(0 - f(min / scale));
  const zp = roundHalfEven(Math.max(0, Math.min(255, initial)));
  const [y, yScale, yZero] = outs.map(allocOut) as [
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
  ];
  const yv = y.dataSync();
  for (let i = 0; i < xv.length; i++) {
    const q = roundHalfEven(f(xv[i]! / scale)) + zp;
    yv[i] = q < 0 ? 0 : q > 255 ? 255 : q;
  }
  yScale.dataSync()[0] = scale;
  yZero.dataSync()[0] = zp;
  return [y, yScale, yZero];
};
