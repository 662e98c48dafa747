// Hand-written output rule of raf.op.topk (specs/tensor/topk.yaml): the values keep x's dtype, the indices are int32.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { TopkArgs } from '../generated/schema/topk.ts';

/** The output types of raf.op.topk: values and indices, each x's shape with k along axis. */
export function topkRule<T extends TensorType>(args: TopkArgs<T>): TensorType[] {
  const { x, k, axis } = args;
  const dim = x.shape[axis]!;
  if (k > dim) throw new OpError('topk', `k = ${k} exceeds the ${dim} elements along axis ${axis}`, 'k');
  const shape = x.shape.map((d, i) => (i === axis ? k : d));
  return [
    { shape, dtype: x.dtype },
    { shape, dtype: 'int32' },
  ];
}
