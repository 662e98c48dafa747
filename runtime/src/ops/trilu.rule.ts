// Hand-written shape rule of raf.op.trilu (specs/tensor/trilu.yaml): x's type, for x of at least 2 axes.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { TriluArgs } from '../generated/schema/trilu.ts';

/** The output type of raf.op.trilu: x's; the triangle is taken over the last two axes. */
export function triluRule<T extends TensorType>(args: TriluArgs<T>): TensorType {
  const { x } = args;
  if (x.shape.length < 2)
    throw new OpError(
      'trilu',
      `must have at least 2 axes (a matrix or a batch of them), got rank ${x.shape.length}`,
      'x',
    );
  return { shape: [...x.shape], dtype: x.dtype };
}
