// WebGPU kernel of raf.op.squeeze (specs/tensor/squeeze.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: axis (the output type it is given already has the new shape)

import type { SqueezeKernel } from '../../../generated/bridge/squeeze.ts';
import { requireGpu } from '../dialect.ts';
import { viewTensor } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { gpuHolds } from '../storage.ts';

export const squeezeWebgpu: WebGpuBuilder<SqueezeKernel> = (_attrs, out) => {
  requireGpu();
  if (!gpuHolds(out.dtype)) return null;
  return ({ x }, _kattrs, kout) => viewTensor(x, kout);
};
