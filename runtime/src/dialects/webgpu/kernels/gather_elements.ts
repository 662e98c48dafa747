// WebGPU kernel of raf.op.gather_elements (specs/tensor/gather_elements.yaml).

import type { GatherElementsKernel } from '../../../generated/bridge/gather_elements.ts';
import { gatherElements, gatherElementsBuilder } from '../elements.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const gatherElementsWebgpu: WebGpuBuilder<GatherElementsKernel> = (_attrs, _out, { x, indices }) => {
  const gpu = gatherElementsBuilder(x, indices);
  return gpu && (({ x, indices }, { axis }, kout) => gatherElements(gpu, x, indices, axis, kout));
};
