// Hand-written shape rule of raf.op.nonzero (specs/tensor/nonzero.yaml): the count comes from x's values, which the
// type function reads (`check: values`), so in a graph x must be a constant.

import type { TensorType } from '../tensor.ts';
import type { NonzeroArgs } from '../generated/schema/nonzero.ts';

/** The output type of raf.op.nonzero: int64 [rank, count]; a scalar counts as one element of a 1-D x (onnxruntime). */
export function nonzeroRule<T extends TensorType>(
  args: NonzeroArgs<T>,
  values: { readonly x: readonly number[] },
): TensorType {
  const count = values.x.filter((v) => v !== 0).length;
  return { shape: [Math.max(args.x.shape.length, 1), count], dtype: 'int64' };
}
