// WebGPU kernel of raf.op.squeeze (specs/tensor/squeeze.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: axis (the output type it is given already has the new shape)

import type { SqueezeKernel } from '../../../generated/bridge/squeeze.ts';
import { viewBuilder } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const squeezeWebgpu: WebGpuBuilder<SqueezeKernel> = viewBuilder;
