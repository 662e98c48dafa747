// Hand-written shape rule of raf.op.gather_elements (specs/tensor/gather_elements.yaml): the output has indices' shape.

import { OpError } from '../errors.ts';
import { formatShape, normalizeAxis, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { GatherElementsArgs } from '../generated/schema/gather_elements.ts';

/**
 * Checks indices against x for an element-wise gather or scatter along axis (gather_elements, its backward): int32 or
 * int64, x's rank, and no longer than x on the other axes (ONNX and torch.gather read x at indices' coordinates there).
 */
export function checkElementIndices(op: string, x: TensorType, indices: TensorType, axis: number): void {
  if (indices.dtype !== 'int32' && indices.dtype !== 'int64')
    throw new OpError(op, `must be int32 or int64, got ${indices.dtype}`, 'indices');
  if (indices.shape.length !== x.shape.length)
    throw new OpError(op, `has rank ${indices.shape.length}, x has rank ${x.shape.length}; they must agree`, 'indices');
  const a = normalizeAxis(axis, x.shape.length);
  indices.shape.forEach((d, i) => {
    if (i !== a && d > x.shape[i]!)
      throw new OpError(op, `has ${d} elements on axis ${i}, more than x's ${x.shape[i]}`, 'indices');
  });
}

export function gatherElementsRule<T extends TensorType>(args: GatherElementsArgs<T>): TensorType {
  checkElementIndices('gather_elements', args.x, args.indices, args.axis);
  return { shape: [...args.indices.shape], dtype: args.x.dtype };
}

/** gather_elements_dx's inputs: indices as for the forward, and dy of indices' shape. */
export function checkElementGrad(x: TensorType, indices: TensorType, dy: TensorType, axis: number): void {
  checkElementIndices('gather_elements_dx', x, indices, axis);
  if (!shapesEqual(dy.shape, indices.shape))
    throw new OpError(
      'gather_elements_dx',
      `has shape ${formatShape(dy.shape)}, indices have ${formatShape(indices.shape)}`,
      'dy',
    );
}
