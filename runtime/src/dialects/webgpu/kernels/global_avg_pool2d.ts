// WebGPU kernel of raf.op.global_avg_pool2d (specs/nn/global_avg_pool2d.yaml): the shared mean reduction over H and W.

import type { GlobalAvgPool2dKernel } from '../../../generated/bridge/global_avg_pool2d.ts';
import type { MeanKernel } from '../../../generated/bridge/mean.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { MEAN, reduction } from '../reduce.ts';

const SPATIAL = { axis: [2, 3], keepdims: true } as const;

export const globalAvgPool2dWebgpu: WebGpuBuilder<GlobalAvgPool2dKernel> = (_attrs, out, inputs) => {
  const mean = reduction<MeanKernel>(MEAN)(SPATIAL, out, inputs);
  return mean && ((ins, _a, o) => mean(ins, SPATIAL, o));
};
