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

/**
 * The dtype `sum` and `prod` accumulate and return in, NumPy's rule for `np.add.reduce` / `np.multiply.reduce`: bool
 * and the signed integers narrower than int64 (int8, int16, int32) give int64, the unsigned ones narrower than
 * uint64 (uint8, uint16, uint32) give uint64; int64, uint64 and the floats keep their dtype (float16 too, as in NumPy).
 * So `sum` of int8 [100, 100] is int64 200, not int8 -56, and `sum` of bool [T, T, T] is int64 3 (the count of trues).
 * int64 and uint64 hold integers exactly within ±(2^53 - 1) here (dtype.ts): a sum or product beyond that is refused
 * by the kernel's result check, never rounded. ONNX's ReduceSum / ReduceProd keep the input dtype: FromOnnx casts the
 * result back (wrapping modulo 2^bits, which is what a fixed-width accumulator gives).
 */
export function accumulateDtype(d: DType): DType {
  switch (d) {
    case 'bool':
    case 'int8':
    case 'int16':
    case 'int32':
      return 'int64';
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return 'uint64';
    default:
      return d;
  }
}

/**
 * Ops NumPy refuses on bool tensors (`-x` and `a - b` of booleans raise a TypeError there), by the args checked; each
 * with the op NumPy points to instead. The rest of bool arithmetic follows NumPy without a rule: `add` of bools is a
 * logical or and `multiply` a logical and (bool results are stored as 0 or 1, dtype.ts finishStorage), `divide`
 * computes in float, `maximum` / `minimum` are or / and.
 */
const BOOL_REFUSED: ReadonlyMap<string, { readonly args: readonly string[]; readonly instead: string }> = new Map([
  ['negative', { args: ['x'], instead: 'raf.op.logical_not' }],
  ['subtract', { args: ['a', 'b'], instead: 'raf.op.logical_xor' }],
]);

/** Refuses, as NumPy does, a bool argument to an op in BOOL_REFUSED: an OpError naming the op and the argument. */
export function checkBoolArithmetic(op: string, args: unknown): void {
  const rule = BOOL_REFUSED.get(op);
  if (!rule) return;
  const a = args as Record<string, { readonly dtype?: unknown } | null | undefined>;
  for (const name of rule.args) {
    if (a[name]?.dtype !== 'bool') continue;
    // subtract refuses only bool - bool, as NumPy (a bool with a number promotes to the number's dtype there).
    if (rule.args.length > 1 && rule.args.some((n) => a[n]?.dtype !== 'bool')) return;
    throw new OpError(
      op,
      `dtype bool is not supported: NumPy refuses ${op} of booleans too; use ${rule.instead}, or cast to an integer first (raf.op.cast)`,
      name,
    );
  }
}
