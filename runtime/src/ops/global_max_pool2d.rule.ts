// Hand-written output rule of raf.op.global_max_pool2d (specs/nn/global_max_pool2d.yaml): the same as global_avg_pool2d's.

import type { TensorType } from '../tensor.ts';
import type { GlobalAvgPool2dArgs } from '../generated/schema/global_avg_pool2d.ts';
import { globalPool2dRule as avgRule } from './global_avg_pool2d.rule.ts';

export function globalPool2dRule<T extends TensorType>(args: GlobalAvgPool2dArgs<T>): TensorType {
  return avgRule(args, 'global_max_pool2d');
}
