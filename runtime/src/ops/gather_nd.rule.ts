// Hand-written shape rule of raf.op.gather_nd (specs/tensor/gather_nd.yaml): indices.shape[:-1] + x.shape[b + k:].

import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { GatherNdArgs } from '../generated/schema/gather_nd.ts';

export function gatherNdRule<T extends TensorType>(args: GatherNdArgs<T>): TensorType {
  const { x, indices, batch_dims: b } = args;
  if (indices.dtype !== 'int32' && indices.dtype !== 'int64')
    throw new OpError('gather_nd', `must be int32 or int64, got ${indices.dtype}`, 'indices');
  if (b >= x.shape.length || b >= indices.shape.length)
    throw new OpError(
      'gather_nd',
      `= ${b} must be below the ranks of x (${x.shape.length}) and indices (${indices.shape.length})`,
      'batch_dims',
    );
  if (!shapesEqual(x.shape.slice(0, b), indices.shape.slice(0, b)))
    throw new OpError(
      'gather_nd',
      `'s first ${b} axes ${formatShape(indices.shape.slice(0, b))} must equal x's ${formatShape(x.shape.slice(0, b))} (batch_dims)`,
      'indices',
    );
  const k = indices.shape[indices.shape.length - 1]!;
  if (k < 1 || b + k > x.shape.length)
    throw new OpError(
      'gather_nd',
      `last axis (${k}) must index 1 to ${x.shape.length - b} of x's axes after the ${b} batch axes`,
      'indices',
    );
  return { shape: [...indices.shape.slice(0, -1), ...x.shape.slice(b + k)], dtype: x.dtype };
}
