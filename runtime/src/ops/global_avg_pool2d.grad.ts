// Hand-written gradient of raf.op.global_avg_pool2d (specs/nn/global_avg_pool2d.yaml): the mean's backward over H and W.

import type { GlobalAvgPool2dGradContext, GlobalAvgPool2dGradResult } from '../generated/grad/global_avg_pool2d.ts';
import { meanDx } from '../generated/api/mean_dx.ts';

export function globalAvgPool2dGradImpl({ x, dy }: GlobalAvgPool2dGradContext): GlobalAvgPool2dGradResult {
  return { x: meanDx(x, dy, [2, 3], true) };
}
