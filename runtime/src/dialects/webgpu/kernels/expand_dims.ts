// WebGPU kernel of raf.op.expand_dims (specs/tensor/expand_dims.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: axis (the output type it is given already has the new shape)

import type { ExpandDimsKernel } from '../../../generated/bridge/expand_dims.ts';
import { viewBuilder } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const expandDimsWebgpu: WebGpuBuilder<ExpandDimsKernel> = viewBuilder;
