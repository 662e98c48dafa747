// Hand-written output rule of raf.op.cross_entropy (specs/nn/cross_entropy.yaml): the same contract as nll_loss.

import type { TensorType } from '../tensor.ts';
import type { CrossEntropyArgs } from '../generated/schema/cross_entropy.ts';
import { classLossType } from './nll_loss.rule.ts';

export function crossEntropyRule<T extends TensorType>(args: CrossEntropyArgs<T>): TensorType {
  return classLossType('cross_entropy', args.x, args.target);
}
