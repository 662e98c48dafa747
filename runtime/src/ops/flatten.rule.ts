// Hand-written shape rule of raf.op.flatten (specs/tensor/flatten.yaml): [prod(x.shape[:axis]), prod(x.shape[axis:])].

import { OpError } from '../errors.ts';
import { sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { FlattenArgs } from '../generated/schema/flatten.ts';

export function flattenRule<T extends TensorType>(args: FlattenArgs<T>): TensorType {
  const { x, axis } = args;
  const n = x.shape.length;
  // Unlike an axis check, ndim itself is valid here: everything goes into the rows.
  if (axis < -n || axis > n) throw new OpError('flatten', `axis ${axis} is outside [-${n}, ${n}]`, 'axis');
  const a = axis < 0 ? axis + n : axis;
  return { shape: [sizeOf(x.shape.slice(0, a)), sizeOf(x.shape.slice(a))], dtype: x.dtype };
}
