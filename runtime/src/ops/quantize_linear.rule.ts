// Hand-written output rule of raf.op.quantize_linear (specs/quant/quantize_linear.yaml): x's shape, in y_zero_point's
// dtype, else output_dtype's, else uint8 (ONNX's default).

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { QuantizeLinearArgs } from '../generated/schema/quantize_linear.ts';
import { checkFloat, quantLayout, quantRange } from './quant.ts';

const OP = 'quantize_linear';

export function quantizeLinearRule<T extends TensorType>(args: QuantizeLinearArgs<T>): TensorType {
  const { x, y_scale, y_zero_point: zp, output_dtype } = args;
  if (x.dtype !== 'float32' && x.dtype !== 'float16' && x.dtype !== 'float64' && x.dtype !== 'int32')
    throw new OpError(OP, `dtype ${x.dtype} is not supported; expected float32, float16 or int32`, 'x');
  checkFloat(OP, 'y_scale', y_scale);
  if (zp && output_dtype !== null && zp.dtype !== output_dtype)
    throw new OpError(OP, `${output_dtype} differs from y_zero_point's dtype ${zp.dtype}`, 'output_dtype');
  const dtype = zp ? zp.dtype : (output_dtype ?? 'uint8');
  quantRange(OP, zp ? 'y_zero_point' : 'output_dtype', dtype);
  quantLayout(OP, 'y_scale', x.shape, y_scale.shape, args.axis, args.block_size);
  if (zp) quantLayout(OP, 'y_zero_point', x.shape, zp.shape, args.axis, args.block_size);
  return { shape: x.shape, dtype };
}
