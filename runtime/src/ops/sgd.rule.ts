// Hand-written output rule of raf.op.sgd (specs/optim/sgd.yaml), and the state checks every optimizer op shares:
// each state tensor must have the parameter's shape and dtype, and `step` must be one number.

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { SgdArgs } from '../generated/schema/sgd.ts';

/**
 * Checks an optimizer op's tensors: `param` a float tensor, every other tensor in `like` of its shape and dtype,
 * `step` a single value. Returns the parameter's type (each output of an optimizer op has it).
 */
export function optimizerStateType(
  op: string,
  param: TensorType,
  like: Readonly<Record<string, TensorType>>,
  step: TensorType,
): TensorType {
  if (!isFloat(param.dtype)) throw new OpError(op, `must be a float tensor, got ${param.dtype}`, 'param');
  for (const [name, t] of Object.entries(like)) {
    if (!shapesEqual(t.shape, param.shape))
      throw new OpError(op, `shape ${formatShape(t.shape)} does not match param's ${formatShape(param.shape)}`, name);
    if (t.dtype !== param.dtype) throw new OpError(op, `dtype ${t.dtype} does not match param's ${param.dtype}`, name);
  }
  if (step.shape.reduce((p, d) => p * d, 1) !== 1 || step.shape.length > 1 || step.dtype === 'bool')
    throw new OpError(
      op,
      `must be one number (the 1-based step count), got ${step.dtype}${formatShape(step.shape)}`,
      'step',
    );
  return { shape: param.shape, dtype: param.dtype };
}

/** The output types of raf.op.sgd: the new parameter and the new momentum buffer, both of param's type. */
export function sgdRule<T extends TensorType>(args: SgdArgs<T>): TensorType[] {
  const { param, grad, momentum_buffer, step, momentum, dampening, nesterov } = args;
  const t = optimizerStateType('sgd', param, { grad, momentum_buffer }, step);
  if (nesterov && (momentum <= 0 || dampening !== 0))
    throw new OpError(
      'sgd',
      `needs momentum > 0 and dampening = 0 (got momentum ${momentum}, dampening ${dampening})`,
      'nesterov',
    );
  return [t, t];
}
