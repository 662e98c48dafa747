// WebGPU kernel of raf.op.strided_slice (specs/tensor/strided_slice.yaml): a strided gather, negative steps included.

import type { StridedSliceKernel } from '../../../generated/bridge/strided_slice.ts';
import { resolveSlice } from '../../../ops/slice.ts';
import { requireGpu } from '../dialect.ts';
import { warmGather } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { pick } from '../lattice.ts';
import { gpuElementType } from '../storage.ts';

export const stridedSliceWebgpu: WebGpuBuilder<StridedSliceKernel> = (_attrs, out) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype)) return null;
  warmGather(gpu);
  return ({ x }, { begin, end, strides, axes }, kout) =>
    pick(gpu, x, resolveSlice('strided_slice', x.shape, begin, end, strides, axes), kout);
};
