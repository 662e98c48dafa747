// Hand-written shape rule of raf.op.compress (specs/tensor/compress.yaml): the kept length comes from condition's
// values, which the type function reads (`check: values`), so in a graph condition must be a constant.

import { OpError } from '../errors.ts';
import { sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { CompressArgs } from '../generated/schema/compress.ts';

/** The output type of raf.op.compress: x with axis (or the flattened x) shortened to the true entries of condition. */
export function compressRule<T extends TensorType>(
  args: CompressArgs<T>,
  values: { readonly condition: readonly number[] },
): TensorType {
  const { x, condition, axis } = args;
  if (condition.shape.length !== 1)
    throw new OpError('compress', `must be 1-D, got rank ${condition.shape.length}`, 'condition');
  const len = axis === null ? sizeOf(x.shape) : x.shape[axis]!;
  if (values.condition.length > len)
    throw new OpError(
      'compress',
      `has ${values.condition.length} entries, longer than the ${len} ${axis === null ? 'elements of x' : `elements along axis ${axis}`}`,
      'condition',
    );
  const kept = values.condition.filter((v) => v !== 0).length;
  return { shape: axis === null ? [kept] : x.shape.map((d, i) => (i === axis ? kept : d)), dtype: x.dtype };
}
