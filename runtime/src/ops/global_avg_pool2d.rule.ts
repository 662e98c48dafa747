// Hand-written output rule of raf.op.global_avg_pool2d and global_max_pool2d: x [N, C, H, W] → [N, C, 1, 1].

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { GlobalAvgPool2dArgs } from '../generated/schema/global_avg_pool2d.ts';

export function globalPool2dRule<T extends TensorType>(
  args: GlobalAvgPool2dArgs<T>,
  op = 'global_avg_pool2d',
): TensorType {
  const { x } = args;
  if (x.shape.length !== 4) throw new OpError(op, `must be 4-D [N, C, H, W], got ${formatShape(x.shape)}`, 'x');
  return { shape: [x.shape[0]!, x.shape[1]!, 1, 1], dtype: x.dtype };
}
