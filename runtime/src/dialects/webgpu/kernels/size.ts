// WebGPU kernel of raf.op.size (specs/tensor/size.yaml): x's element count is known on the host from its shape, so the
// scalar is uploaded (int64 is held as int32 on the GPU, refused beyond its range, never wrapped).

import type { SizeKernel } from '../../../generated/bridge/size.ts';
import { sizeOf } from '../../../shape.ts';
import { tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { uploadTensor } from '../storage.ts';

export const sizeWebgpu: WebGpuBuilder<SizeKernel> = () => {
  const gpu = requireGpu();
  return ({ x }, _attrs, out) => uploadTensor(gpu, tensor([sizeOf(x.shape)], { dtype: out.dtype, shape: [] }));
};
