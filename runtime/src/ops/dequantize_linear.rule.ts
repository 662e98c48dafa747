// Hand-written output rule of raf.op.dequantize_linear (specs/quant/dequantize_linear.yaml): x's shape, in x_scale's
// dtype (or output_dtype).

import { OpError } from '../errors.ts';
import { isFloat } from '../dtype.ts';
import type { TensorType } from '../tensor.ts';
import type { DequantizeLinearArgs } from '../generated/schema/dequantize_linear.ts';
import { checkFloat, checkZeroPoint, quantLayout } from './quant.ts';

const OP = 'dequantize_linear';

export function dequantizeLinearRule<T extends TensorType>(args: DequantizeLinearArgs<T>): TensorType {
  const { x, x_scale, x_zero_point: zp, output_dtype } = args;
  quantLayout(OP, 'x_scale', x.shape, x_scale.shape, args.axis, args.block_size);
  if (zp) quantLayout(OP, 'x_zero_point', x.shape, zp.shape, args.axis, args.block_size);
  // float32 (or float64) x holds the values of a narrow float format raf-op has no dtype for (float8, float4e2m1),
  // which ONNX dequantizes without a zero point.
  const floatX = x.dtype === 'float32' || x.dtype === 'float64';
  if (!floatX && !['uint8', 'int8', 'uint16', 'int16', 'int32'].includes(x.dtype))
    throw new OpError(OP, `dtype ${x.dtype} is not supported; expected uint8, int8, uint16, int16 or int32`, 'x');
  if (floatX && zp) throw new OpError(OP, `a float x (float8 or float4 values) takes no zero point`, 'x_zero_point');
  checkFloat(OP, 'x_scale', x_scale);
  checkZeroPoint(OP, 'x_zero_point', zp, 'x', x);
  if (output_dtype !== null && !isFloat(output_dtype))
    throw new OpError(OP, `${output_dtype} is not a float dtype`, 'output_dtype');
  return { shape: x.shape, dtype: output_dtype ?? x_scale.dtype };
}
