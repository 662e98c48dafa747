// WebGPU kernel of raf.op.pad (specs/tensor/pad.yaml): x placed at offset pads[:rank], value elsewhere.

import type { PadKernel } from '../../../generated/bridge/pad.ts';
import { requireGpu } from '../dialect.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { padLattice, place, warmPlace } from '../lattice.ts';
import { gpuElementType } from '../storage.ts';

export const padWebgpu: WebGpuBuilder<PadKernel> = (_attrs, out) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype)) return null;
  warmPlace(gpu);
  return ({ x }, { pads, value }, kout) => place(gpu, x, padLattice(x.shape, pads), value, kout);
};
