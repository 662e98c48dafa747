// Dtype promotion for ops that compute in floating point (a spec's `promote:` field, applied by its type function).
//
// The rule, as NumPy and PyTorch have it for their float-only functions: an integer (int64, int32, int8, uint8) or
// bool tensor argument computes in the float dtype of the call's other promoted arguments, or in the default float
// (float32) when none is a float, so `exp(int32)` and `softmax(bool)` give float32 results. `promote: refuse` raises an OpError instead. An op without
// the field takes every dtype its kernels serve, integer math included (add, max, take, cumsum...). `promote: integer` is
// the converse, for ops only defined on integers (bitwise, integer division): a float tensor argument raises an OpError.

import { call } from './dispatch.ts';
import { isFloat, type DType } from './dtype.ts';
import { OpError } from './errors.ts';
import { Tensor, type TensorType } from './tensor.ts';

export type PromoteRule = 'float' | 'refuse' | 'integer';

/** The dtype promoted args compute in: the first float dtype among them, else float32. */
export function promotionTarget(tensors: readonly (TensorType | null)[]): DType {
  for (const t of tensors) if (t && isFloat(t.dtype)) return t.dtype;
  return 'float32';
}

/**
 * One tensor arg under `rule`: a float stays as it is; an integer or bool one becomes `target` (a real tensor is cast by
 * raf.op.cast, a traced or type-only one only changes its type) or, under `refuse`, is an OpError naming the argument.
 */
export function promote<T extends TensorType | null>(
  op: string,
  arg: string,
  t: T,
  rule: PromoteRule,
  target: DType,
): T {
  if (rule === 'integer') {
    if (t !== null && isFloat(t.dtype))
      throw new OpError(
        op,
        `dtype ${t.dtype} is not supported: raf.op.${op} is defined on integers (and bool) only; cast it first (raf.op.cast)`,
        arg,
      );
    return t;
  }
  if (t === null || isFloat(t.dtype)) return t;
  if (rule === 'refuse')
    throw new OpError(
      op,
      `dtype ${t.dtype} is not supported: raf.op.${op} computes in floating point; cast it first (raf.op.cast)`,
      arg,
    );
  if (!(t instanceof Tensor)) return { shape: t.shape, dtype: target } as TensorType as T;
  if (t.storage.symbolic) return new Tensor(t.shape, target, t.storage) as TensorType as T;
  return call('cast', [t, target]) as TensorType as T;
}
