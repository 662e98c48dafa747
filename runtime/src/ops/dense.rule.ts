// Hand-written output rule of raf.op.dense (specs/linalg/dense.yaml): x · wᵀ, with b one value per unit.

import { matmulOf } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { DenseArgs } from '../generated/schema/dense.ts';

export function denseRule<T extends TensorType>(args: DenseArgs<T>): TensorType {
  const out = matmulOf('dense', args.x, args.w, false, true);
  const units = args.w.shape[0]!;
  if (args.b.shape.length !== 1 || args.b.shape[0] !== units) {
    throw new OpError('dense', `must have shape [${units}], got ${formatShape(args.b.shape)}`, 'b');
  }
  if (args.b.dtype !== out.dtype)
    throw new OpError('dense', `dtype mismatch: x is ${out.dtype}, b is ${args.b.dtype}`, 'b');
  return out;
}
