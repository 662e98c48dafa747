// WebGPU kernel of raf.op.take (specs/tensor/take.yaml): slices of x along axis at int32 indices.

import type { TakeKernel } from '../../../generated/bridge/take.ts';
import { take, takeBuilder } from '../indexed.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const takeWebgpu: WebGpuBuilder<TakeKernel> = (_attrs, _out, { x, indices }) => {
  const gpu = takeBuilder(x, indices);
  return gpu && (({ x, indices }, { axis }, kout) => take(gpu, x, indices, axis, kout));
};
