// Hand-written shape rule of raf.op.size (specs/tensor/size.yaml): an int64 scalar, whatever x is.

import type { TensorType } from '../tensor.ts';
import type { SizeArgs } from '../generated/schema/size.ts';

export function sizeRule<T extends TensorType>(_args: SizeArgs<T>): TensorType {
  return { shape: [], dtype: 'int64' };
}
