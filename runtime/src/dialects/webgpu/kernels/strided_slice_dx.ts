// WebGPU kernel of raf.op.strided_slice_dx (specs/tensor/strided_slice_dx.yaml): dy placed on the slice's lattice, zeros elsewhere.

import type { StridedSliceDxKernel } from '../../../generated/bridge/strided_slice_dx.ts';
import { resolveSlice } from '../../../ops/slice.ts';
import { requireGpu } from '../dialect.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { place, warmPlace } from '../lattice.ts';
import { gpuElementType } from '../storage.ts';

export const stridedSliceDxWebgpu: WebGpuBuilder<StridedSliceDxKernel> = (_attrs, out, { dy }) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype) || dy.dtype !== out.dtype) return null;
  warmPlace(gpu);
  return ({ x, dy }, { begin, end, strides, axes }, kout) =>
    place(gpu, dy, resolveSlice('strided_slice_dx', x.shape, begin, end, strides, axes), 0, kout);
};
