// Hand-written output rule of raf.op.softmax_cross_entropy_loss (specs/nn/softmax_cross_entropy_loss.yaml): the loss
// as negative_log_likelihood_loss gives it, and log_prob of x's type.

import type { TensorType } from '../tensor.ts';
import type { SoftmaxCrossEntropyLossArgs } from '../generated/schema/softmax_cross_entropy_loss.ts';
import { lossType } from './negative_log_likelihood_loss.rule.ts';

export function softmaxCrossEntropyLossRule<T extends TensorType>(args: SoftmaxCrossEntropyLossArgs<T>): TensorType[] {
  return [lossType('softmax_cross_entropy_loss', args), { shape: args.x.shape, dtype: args.x.dtype }];
}
