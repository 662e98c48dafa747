// Hand-written shape rule of raf.op.constant_of_shape (specs/tensor/constant_of_shape.yaml): the shape is the values of
// the `shape` vector, which the type function reads (`check: values`), so in a graph `shape` must be a constant.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { ConstantOfShapeArgs } from '../generated/schema/constant_of_shape.ts';

export function constantOfShapeRule<T extends TensorType>(
  args: ConstantOfShapeArgs<T>,
  values: { readonly shape: readonly number[] },
): TensorType {
  const { shape } = args;
  if (shape.dtype !== 'int64' && shape.dtype !== 'int32')
    throw new OpError('constant_of_shape', `must be int64 or int32, got ${shape.dtype}`, 'shape');
  if (shape.shape.length !== 1)
    throw new OpError('constant_of_shape', `must be a vector of dims, got shape ${formatShape(shape.shape)}`, 'shape');
  const bad = values.shape.find((d) => !(Number.isInteger(d) && d >= 0));
  if (bad !== undefined)
    throw new OpError(
      'constant_of_shape',
      `dims must be non-negative integers, got ${formatShape(values.shape)}`,
      'shape',
    );
  return { shape: [...values.shape], dtype: args.dtype };
}
