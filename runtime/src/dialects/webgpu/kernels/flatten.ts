// WebGPU kernel of raf.op.flatten (specs/tensor/flatten.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: axis (the output type it is given already has the 2-D shape)

import type { FlattenKernel } from '../../../generated/bridge/flatten.ts';
import { requireGpu } from '../dialect.ts';
import { viewTensor } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { gpuHolds } from '../storage.ts';

export const flattenWebgpu: WebGpuBuilder<FlattenKernel> = (_attrs, out) => {
  requireGpu();
  if (!gpuHolds(out.dtype)) return null;
  return ({ x }, _kattrs, kout) => viewTensor(x, kout);
};
