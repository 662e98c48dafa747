// WebGPU kernel of raf.op.reshape (specs/tensor/reshape.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: shape (the output type it is given already has it)

import type { ReshapeKernel } from '../../../generated/bridge/reshape.ts';
import { requireGpu } from '../dialect.ts';
import { viewTensor } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { gpuHolds } from '../storage.ts';

export const reshapeWebgpu: WebGpuBuilder<ReshapeKernel> = (_attrs, out) => {
  requireGpu();
  if (!gpuHolds(out.dtype)) return null;
  return ({ x }, _kattrs, kout) => viewTensor(x, kout);
};
