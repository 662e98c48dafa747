// Hand-written output rule of raf.op.lans (specs/optim/lans.yaml): three outputs of the parameter's type.

import type { TensorType } from '../tensor.ts';
import type { LansArgs } from '../generated/schema/lans.ts';
import { optimizerStateType } from './sgd.rule.ts';

/** The output types of raf.op.lans: new parameter, first moment and second moment. */
export function lansRule<T extends TensorType>(args: LansArgs<T>): TensorType[] {
  const { param, grad, exp_avg, exp_avg_sq, step } = args;
  const t = optimizerStateType('lans', param, { grad, exp_avg, exp_avg_sq }, step);
  return [t, t, t];
}
