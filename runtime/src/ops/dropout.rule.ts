// Hand-written output rule of raf.op.dropout (specs/nn/dropout.yaml): y of x's type and a bool mask of x's shape.

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { DropoutArgs } from '../generated/schema/dropout.ts';

export function dropoutRule<T extends TensorType>(args: DropoutArgs<T>): TensorType[] {
  const { x, ratio } = args;
  if (!isFloat(x.dtype)) throw new OpError('dropout', `must be a float tensor, got ${x.dtype}`, 'x');
  if (ratio && (ratio.shape.length > 1 || ratio.shape.reduce((p, d) => p * d, 1) !== 1 || !isFloat(ratio.dtype)))
    throw new OpError('dropout', `must be one float value, got ${ratio.dtype}${formatShape(ratio.shape)}`, 'ratio');
  return [
    { shape: x.shape, dtype: x.dtype },
    { shape: x.shape, dtype: 'bool' },
  ];
}
