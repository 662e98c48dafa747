// Hand-written output rule of raf.op.avg_pool2d (specs/nn/avg_pool2d.yaml): the same windows as max_pool2d.

import type { TensorType } from '../tensor.ts';
import type { AvgPool2dArgs } from '../generated/schema/avg_pool2d.ts';
import { window2d } from './window.ts';

export function avgPool2dRule<T extends TensorType>(args: AvgPool2dArgs<T>): TensorType {
  const g = window2d('avg_pool2d', args.x.shape, args.kernel, args.stride, args.padding);
  return { shape: [args.x.shape[0]!, args.x.shape[1]!, g.oh, g.ow], dtype: args.x.dtype };
}
