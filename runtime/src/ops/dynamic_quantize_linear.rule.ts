// Hand-written output rule of raf.op.dynamic_quantize_linear (specs/quant/dynamic_quantize_linear.yaml): y (uint8, x's
// shape), y_scale (a float32 scalar) and y_zero_point (a uint8 scalar).

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { DynamicQuantizeLinearArgs } from '../generated/schema/dynamic_quantize_linear.ts';

export function dynamicQuantizeLinearRule<T extends TensorType>(args: DynamicQuantizeLinearArgs<T>): TensorType[] {
  const { x } = args;
  if (x.dtype !== 'float32')
    throw new OpError('dynamic_quantize_linear', `dtype ${x.dtype} is not supported; ONNX defines float32 only`, 'x');
  return [
    { shape: x.shape, dtype: 'uint8' },
    { shape: [], dtype: 'float32' },
    { shape: [], dtype: 'uint8' },
  ];
}
