// Hand-written output rule of raf.op.roi_align (specs/nn/roi_align.yaml): [R, C, output_height, output_width].

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { RoiAlignArgs } from '../generated/schema/roi_align.ts';

const OP = 'roi_align';

export function roiAlignRule<T extends TensorType>(args: RoiAlignArgs<T>): TensorType {
  const { x, rois, batch_indices } = args;
  if (x.shape.length !== 4 || !isFloat(x.dtype))
    throw new OpError(OP, `needs a float x [N, C, H, W], got ${x.dtype}${formatShape(x.shape)}`, 'x');
  if (rois.shape.length !== 2 || rois.shape[1] !== 4 || rois.dtype !== x.dtype)
    throw new OpError(OP, `needs ${x.dtype} rois [R, 4], got ${rois.dtype}${formatShape(rois.shape)}`, 'rois');
  const R = rois.shape[0]!;
  if (batch_indices.shape.length !== 1 || batch_indices.shape[0] !== R)
    throw new OpError(OP, `must have shape [${R}], got ${formatShape(batch_indices.shape)}`, 'batch_indices');
  if (batch_indices.dtype !== 'int64' && batch_indices.dtype !== 'int32')
    throw new OpError(OP, `must be int64 (or int32), got ${batch_indices.dtype}`, 'batch_indices');
  return { shape: [R, x.shape[1]!, args.output_height, args.output_width], dtype: x.dtype };
}
