// Hand-written output rule of raf.op.max_pool2d (specs/nn/max_pool2d.yaml), shared with avg_pool2d.

import type { TensorType } from '../tensor.ts';
import type { MaxPool2dArgs } from '../generated/schema/max_pool2d.ts';
import { window2d } from './window.ts';

export function maxPool2dRule<T extends TensorType>(args: MaxPool2dArgs<T>): TensorType {
  const g = window2d('max_pool2d', args.x.shape, args.kernel, args.stride, args.padding);
  return { shape: [args.x.shape[0]!, args.x.shape[1]!, g.oh, g.ow], dtype: args.x.dtype };
}
