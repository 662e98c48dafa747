// Hand-written output rule of raf.op.reshape (specs/tensor/reshape.yaml): resolves one -1 and checks the size.

import { OpError } from '../errors.ts';
import { formatShape, sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { ReshapeArgs } from '../generated/schema/reshape.ts';

export function reshapeRule<T extends TensorType>(args: ReshapeArgs<T>): TensorType {
  const target = [...args.shape];
  const unknown = target.filter((d) => d === -1).length;
  if (unknown > 1) throw new OpError('reshape', `at most one dimension may be -1, got ${formatShape(target)}`, 'shape');
  if (target.some((d) => d < -1))
    throw new OpError('reshape', `dimensions must be >= -1, got ${formatShape(target)}`, 'shape');
  const size = sizeOf(args.x.shape);
  if (unknown) {
    const known = sizeOf(target.filter((d) => d !== -1));
    if (known === 0 || size % known !== 0) {
      throw new OpError('reshape', `cannot reshape ${formatShape(args.x.shape)} to ${formatShape(target)}`, 'shape');
    }
    target[target.indexOf(-1)] = size / known;
  } else if (sizeOf(target) !== size) {
    throw new OpError(
      'reshape',
      `cannot reshape ${formatShape(args.x.shape)} (${size} elements) to ${formatShape(target)}`,
      'shape',
    );
  }
  return { shape: target, dtype: args.x.dtype };
}
