// Hand-written output rule of raf.op.transpose (specs/tensor/transpose.yaml): axes must permute x's axes.

import { OpError } from '../errors.ts';
import { formatShape, isValidAxis, normalizeAxis } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { TransposeArgs } from '../generated/schema/transpose.ts';

/** The permutation, normalized; null axes reverse them. */
export function permutation(axes: readonly number[] | null, ndim: number): number[] {
  if (axes === null) return Array.from({ length: ndim }, (_, i) => ndim - 1 - i);
  const perm = axes.map((a) => (isValidAxis(a, ndim) ? normalizeAxis(a, ndim) : -1));
  if (perm.length !== ndim || perm.includes(-1) || new Set(perm).size !== ndim) {
    throw new OpError('transpose', `${formatShape(axes)} is not a permutation of ${ndim} axes`, 'axes');
  }
  return perm;
}

export function transposeRule<T extends TensorType>(args: TransposeArgs<T>): TensorType {
  const perm = permutation(args.axes, args.x.shape.length);
  return { shape: perm.map((p) => args.x.shape[p]!), dtype: args.x.dtype };
}
