// Hand-written output rules of raf.op.negative_log_likelihood_loss and softmax_cross_entropy_loss
// (specs/nn/negative_log_likelihood_loss.yaml, softmax_cross_entropy_loss.yaml): x [N, C, d...], target [N, d...],
// weight [C]; the loss is [N, d...] for reduction none, else a scalar.

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { NegativeLogLikelihoodLossArgs } from '../generated/schema/negative_log_likelihood_loss.ts';

interface LossArgs {
  readonly x: TensorType;
  readonly target: TensorType;
  readonly weight: TensorType | null;
  readonly reduction: string;
}

export function lossType(op: string, a: LossArgs): TensorType {
  const { x, target, weight } = a;
  if (x.shape.length < 2) throw new OpError(op, `needs x of shape [N, C, d...], got ${formatShape(x.shape)}`, 'x');
  if (!isFloat(x.dtype)) throw new OpError(op, `must be a float tensor, got ${x.dtype}`, 'x');
  if (target.dtype !== 'int32' && target.dtype !== 'int64')
    throw new OpError(op, `must be int32 or int64 class indices, got ${target.dtype}`, 'target');
  const want = [x.shape[0]!, ...x.shape.slice(2)];
  if (!shapesEqual(target.shape, want))
    throw new OpError(op, `must have shape ${formatShape(want)}, got ${formatShape(target.shape)}`, 'target');
  if (weight) {
    if (weight.shape.length !== 1 || weight.shape[0] !== x.shape[1])
      throw new OpError(op, `must have shape [${x.shape[1]}], got ${formatShape(weight.shape)}`, 'weight');
    if (weight.dtype !== x.dtype) throw new OpError(op, `must be ${x.dtype} as x is, got ${weight.dtype}`, 'weight');
  }
  return { shape: a.reduction === 'none' ? want : [], dtype: x.dtype };
}

export function negativeLogLikelihoodLossRule<T extends TensorType>(
  args: NegativeLogLikelihoodLossArgs<T>,
): TensorType {
  return lossType('negative_log_likelihood_loss', args);
}
