// WebGPU kernel of raf.op.pad_dx (specs/tensor/pad_dx.yaml): the interior of dy, as a strided gather.

import type { PadDxKernel } from '../../../generated/bridge/pad_dx.ts';
import { requireGpu } from '../dialect.ts';
import { warmGather } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { padLattice, pick } from '../lattice.ts';
import { gpuElementType } from '../storage.ts';

export const padDxWebgpu: WebGpuBuilder<PadDxKernel> = (_attrs, out, { dy }) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype) || dy.dtype !== out.dtype) return null;
  warmGather(gpu);
  return ({ x, dy }, { pads }, kout) => pick(gpu, dy, padLattice(x.shape, pads), kout);
};
