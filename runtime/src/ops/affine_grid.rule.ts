// Hand-written output rule of raf.op.affine_grid (specs/nn/affine_grid.yaml): [N, spatial..., k] for k spatial axes.

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { AffineGridArgs } from '../generated/schema/affine_grid.ts';

const OP = 'affine_grid';

export function affineGridRule<T extends TensorType>(args: AffineGridArgs<T>): TensorType {
  const { theta, size } = args;
  if (size.length !== 4 && size.length !== 5)
    throw new OpError(OP, `must be [N, C, H, W] or [N, C, D, H, W], got ${formatShape(size)}`, 'size');
  const k = size.length - 2;
  if (!isFloat(theta.dtype)) throw new OpError(OP, `must be a float tensor, got ${theta.dtype}`, 'theta');
  if (theta.shape.length !== 3 || theta.shape[1] !== k || theta.shape[2] !== k + 1)
    throw new OpError(
      OP,
      `must be [N, ${k}, ${k + 1}] for size ${formatShape(size)}, got ${formatShape(theta.shape)}`,
      'theta',
    );
  if (theta.shape[0] !== size[0])
    throw new OpError(OP, `batch ${size[0]} disagrees with theta's ${theta.shape[0]}`, 'size');
  return { shape: [size[0]!, ...size.slice(2), k], dtype: theta.dtype };
}
