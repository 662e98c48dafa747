// WebGPU kernel of raf.op.global_max_pool2d (specs/nn/global_max_pool2d.yaml): the shared max reduction over H and W.

import type { GlobalMaxPool2dKernel } from '../../../generated/bridge/global_max_pool2d.ts';
import type { MaxKernel } from '../../../generated/bridge/max.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { MAX, reduction } from '../reduce.ts';

const SPATIAL = { axis: [2, 3], keepdims: true } as const;

export const globalMaxPool2dWebgpu: WebGpuBuilder<GlobalMaxPool2dKernel> = (_attrs, out, inputs) => {
  const max = reduction<MaxKernel>(MAX)(SPATIAL, out, inputs);
  return max && ((ins, _a, o) => max(ins, SPATIAL, o));
};
