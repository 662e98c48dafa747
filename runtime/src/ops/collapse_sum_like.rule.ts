// Hand-written output rule of raf.op.collapse_sum_like (specs/reduce/collapse_sum_like.yaml): like's shape, which x must
// broadcast from (aligned at the trailing axes).

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { CollapseSumLikeArgs } from '../generated/schema/collapse_sum_like.ts';

/** The axes of x that are summed: its leading axes, and those where like has 1 and x does not. */
export function collapsedAxes(x: readonly number[], like: readonly number[]): number[] {
  const lead = x.length - like.length;
  return x.map((_, i) => i).filter((i) => i < lead || (like[i - lead] === 1 && x[i] !== 1));
}

export function collapseSumLikeRule<T extends TensorType>(args: CollapseSumLikeArgs<T>): TensorType {
  const x = args.x.shape;
  const like = args.like.shape;
  const lead = x.length - like.length;
  if (lead < 0 || like.some((d, i) => d !== 1 && d !== x[lead + i]))
    throw new OpError(
      'collapse_sum_like',
      `x ${formatShape(x)} does not broadcast from like ${formatShape(like)}`,
      'like',
    );
  return { shape: like, dtype: args.x.dtype };
}
