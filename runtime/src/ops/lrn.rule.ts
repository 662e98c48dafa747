// Hand-written output rule of raf.op.lrn (specs/nn/lrn.yaml): x is (N, C, spatial...); the output is x's type.

import { OpError } from '../errors.ts';
import { isFloat } from '../dtype.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { LrnArgs } from '../generated/schema/lrn.ts';

export function lrnRule<T extends TensorType>(args: LrnArgs<T>): TensorType {
  if (args.x.shape.length < 2) throw new OpError('lrn', `x must be (N, C, ...), got ${formatShape(args.x.shape)}`, 'x');
  if (!isFloat(args.x.dtype)) throw new OpError('lrn', `must be a float tensor, got ${args.x.dtype}`, 'x');
  return { shape: args.x.shape, dtype: args.x.dtype };
}
