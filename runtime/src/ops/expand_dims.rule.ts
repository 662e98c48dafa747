// Hand-written output rule of raf.op.expand_dims (specs/tensor/expand_dims.yaml): axis ranges over the result's ndim.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { ExpandDimsArgs } from '../generated/schema/expand_dims.ts';

export function expandDimsRule<T extends TensorType>(args: ExpandDimsArgs<T>): TensorType {
  const ndim = args.x.shape.length + 1;
  if (!(args.axis >= -ndim && args.axis < ndim))
    throw new OpError('expand_dims', `invalid axis = ${args.axis} on result ndim = ${ndim}`, 'axis');
  const at = args.axis < 0 ? args.axis + ndim : args.axis;
  return { shape: [...args.x.shape.slice(0, at), 1, ...args.x.shape.slice(at)], dtype: args.x.dtype };
}
