// Hand-written output rule of raf.op.nll_loss (specs/nn/nll_loss.yaml), shared with cross_entropy: x [N, C], target [N] → scalar.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { NllLossArgs } from '../generated/schema/nll_loss.ts';

export function classLossType(op: string, x: TensorType, target: TensorType): TensorType {
  if (x.shape.length !== 2) throw new OpError(op, `needs x of shape [N, C], got ${formatShape(x.shape)}`, 'x');
  if (target.dtype !== 'int32' && target.dtype !== 'int64')
    throw new OpError(op, `must be int32 or int64 class indices, got ${target.dtype}`, 'target');
  if (target.shape.length !== 1 || target.shape[0] !== x.shape[0]) {
    throw new OpError(op, `must have shape [${x.shape[0]}], got ${formatShape(target.shape)}`, 'target');
  }
  return { shape: [], dtype: x.dtype };
}

export function nllLossRule<T extends TensorType>(args: NllLossArgs<T>): TensorType {
  return classLossType('nll_loss', args.x, args.target);
}
