// Hand-written output rule of raf.op.adam (specs/optim/adam.yaml): four outputs of the parameter's type.

import type { TensorType } from '../tensor.ts';
import type { AdamArgs } from '../generated/schema/adam.ts';
import { optimizerStateType } from './sgd.rule.ts';

/** The output types of raf.op.adam: new parameter, first moment, second moment and its running maximum. */
export function adamRule<T extends TensorType>(args: AdamArgs<T>): TensorType[] {
  const { param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step } = args;
  const t = optimizerStateType('adam', param, { grad, exp_avg, exp_avg_sq, max_exp_avg_sq }, step);
  return [t, t, t, t];
}
