// Hand-written output rule of raf.op.sum and raf.op.prod (specs/reduce/sum.yaml, prod.yaml): the reduced shape, in
// the dtype NumPy accumulates in (bool and narrow integers widen to int64 / uint64; see accumulateDtype).

import { reduceOf } from '../checks.ts';
import { accumulateDtype } from '../promote.ts';
import type { TensorType } from '../tensor.ts';
import type { SumArgs } from '../generated/schema/sum.ts';

export function accumulateRule<T extends TensorType>(args: SumArgs<T>): TensorType {
  return reduceOf(args.x, args.axis, args.keepdims, accumulateDtype(args.x.dtype));
}
