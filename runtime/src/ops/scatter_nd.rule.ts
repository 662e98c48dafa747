// Hand-written shape rule of raf.op.scatter_nd (specs/tensor/scatter_nd.yaml): x's type, once indices and updates fit.

import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { ScatterNdArgs } from '../generated/schema/scatter_nd.ts';

export function scatterNdRule<T extends TensorType>(args: ScatterNdArgs<T>): TensorType {
  const { x, indices, updates } = args;
  if (indices.dtype !== 'int32' && indices.dtype !== 'int64')
    throw new OpError('scatter_nd', `must be int32 or int64, got ${indices.dtype}`, 'indices');
  const k = indices.shape[indices.shape.length - 1];
  if (k === undefined || k < 1 || k > x.shape.length)
    throw new OpError(
      'scatter_nd',
      `last axis (${k ?? 'none'}) must index 1 to ${x.shape.length} of x's axes`,
      'indices',
    );
  const want = [...indices.shape.slice(0, -1), ...x.shape.slice(k)];
  if (!shapesEqual(updates.shape, want))
    throw new OpError(
      'scatter_nd',
      `updates must have shape ${formatShape(want)}, got ${formatShape(updates.shape)}`,
      'updates',
    );
  if (updates.dtype !== x.dtype)
    throw new OpError('scatter_nd', `has dtype ${updates.dtype}, x has ${x.dtype}`, 'updates');
  return { shape: [...x.shape], dtype: x.dtype };
}
