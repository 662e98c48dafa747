// Hand-written output rule of raf.op.take (specs/tensor/take.yaml), shared with embedding: x.shape[:axis] + indices.shape + x.shape[axis + 1:].

import { isInteger } from '../dtype.ts';
import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { TakeArgs } from '../generated/schema/take.ts';

export function gatherType(op: string, x: TensorType, indices: TensorType, axis: number): TensorType {
  if (!isInteger(indices.dtype))
    throw new OpError(op, `must be an integer dtype (int32, int64, int8, uint8), got ${indices.dtype}`, 'indices');
  return { shape: [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)], dtype: x.dtype };
}

export function takeRule<T extends TensorType>(args: TakeArgs<T>): TensorType {
  return gatherType('take', args.x, args.indices, args.axis);
}
