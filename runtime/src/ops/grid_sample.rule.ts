// Hand-written output rule of raf.op.grid_sample (specs/nn/grid_sample.yaml): [N, C, grid's spatial axes...].

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { GridSampleArgs } from '../generated/schema/grid_sample.ts';

const OP = 'grid_sample';

export function gridSampleRule<T extends TensorType>(args: GridSampleArgs<T>): TensorType {
  const { x, grid } = args;
  const rank = x.shape.length - 2;
  if (rank !== 2 && rank !== 3)
    throw new OpError(OP, `needs x of rank 4 [N, C, H, W] or 5 [N, C, D, H, W], got ${formatShape(x.shape)}`, 'x');
  if (grid.shape.length !== rank + 2 || grid.shape[0] !== x.shape[0])
    throw new OpError(
      OP,
      `needs grid of rank ${rank + 2} [${x.shape[0]}, out..., ${rank}], got ${formatShape(grid.shape)}`,
      'grid',
    );
  if (grid.shape[rank + 1] !== rank)
    throw new OpError(OP, `needs ${rank} coordinates on its last axis, got ${formatShape(grid.shape)}`, 'grid');
  if (!isFloat(grid.dtype) || grid.dtype !== x.dtype)
    throw new OpError(OP, `must be a float tensor of x's dtype ${x.dtype}, got ${grid.dtype}`, 'grid');
  if ((args.mode === 'bicubic' || args.mode === 'cubic') && rank !== 2)
    throw new OpError(OP, `cubic sampling is 2-D only (ONNX), x is ${formatShape(x.shape)}`, 'mode');
  return { shape: [x.shape[0]!, x.shape[1]!, ...grid.shape.slice(1, rank + 1)], dtype: x.dtype };
}
