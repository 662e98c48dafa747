// CPU kernel of raf.op.quantize_linear (specs/quant/quantize_linear.yaml): y = clamp(round_half_even(x / y_scale) +
// y_zero_point) to the output dtype's range. The quotient is rounded to the dtype ONNX divides in (float32 for float32
// x; float16 when x and y_scale are float16; exact for int32 x, which NumPy divides in float64), then rounded to an
// integer, as ONNX's reference and onnxruntime do.
// raf-op-ignores: saturate (it concerns float8 outputs; uint8 and int8 always saturate)
// raf-op-ignores: output_dtype (the output type the rule gives already says it)

import type { QuantizeLinearKernel } from '../../../generated/bridge/quantize_linear.ts';
import { roundToFloat16 } from '../../../dtype.ts';
import { layoutIndex, quantLayout, quantRange } from '../../../ops/quant.ts';
import { roundHalfEven } from '../quant.ts';
import { allocOut } from '../support.ts';

const OP = 'quantize_linear';

export const quantizeLinearCpu: QuantizeLinearKernel = (
  { x, y_scale, y_zero_point: zp },
  { axis, block_size },
  out,
) => {
  const [lo, hi] = quantRange(OP, 'output_dtype', out.dtype);
  const sIdx = layoutIndex(quantLayout(OP, 'y_scale', x.shape, y_scale.shape, axis, block_size), x.shape);
  const zIdx = zp ? layoutIndex(quantLayout(OP, 'y_zero_point', x.shape, zp.shape, axis, block_size), x.shape) : null;
  const exact = x.dtype === 'int32' || x.dtype === 'float64' || y_scale.dtype === 'float64';
  const round: (v: number) => number = exact
    ? (v) => v
    : x.dtype === 'float16' && y_scale.dtype === 'float16'
      ? roundToFloat16
      : Math.fround;
  const y = allocOut(out);
  const yv = y.dataSync();
  const xv = x.dataSync();
  const sv = y_scale.dataSync();
  const zv = zp ? zp.dataSync() : null;
  for (let i = 0; i < xv.length; i++) {
    const q = roundHalfEven(round(xv[i]! / sv[sIdx ? sIdx[i]! : 0]!)) + (zv ? zv[zIdx ? zIdx[i]! : 0]! : 0);
    // NaN (undefined in ONNX) lands on the zero point's side of the range as 0 would; others saturate.
    yv[i] = q < lo ? lo : q > hi ? hi : q === q ? q : 0;
  }
  return y;
};
