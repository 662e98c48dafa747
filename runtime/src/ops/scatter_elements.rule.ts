// Hand-written shape rule of raf.op.scatter_elements (specs/tensor/scatter_elements.yaml): x's type, once indices and
// updates fit it.

import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { ScatterElementsArgs } from '../generated/schema/scatter_elements.ts';
import { checkElementIndices } from './gather_elements.rule.ts';

export function scatterElementsRule<T extends TensorType>(args: ScatterElementsArgs<T>): TensorType {
  const { x, indices, updates, axis } = args;
  checkElementIndices('scatter_elements', x, indices, axis);
  if (!shapesEqual(updates.shape, indices.shape))
    throw new OpError(
      'scatter_elements',
      `updates must have indices' shape ${formatShape(indices.shape)}, got ${formatShape(updates.shape)}`,
      'updates',
    );
  if (updates.dtype !== x.dtype)
    throw new OpError('scatter_elements', `has dtype ${updates.dtype}, x has ${x.dtype}`, 'updates');
  return { shape: [...x.shape], dtype: x.dtype };
}
