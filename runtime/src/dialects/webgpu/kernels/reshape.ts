// WebGPU kernel of raf.op.reshape (specs/tensor/reshape.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: shape (the output type it is given already has it)

import type { ReshapeKernel } from '../../../generated/bridge/reshape.ts';
import { viewBuilder } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const reshapeWebgpu: WebGpuBuilder<ReshapeKernel> = viewBuilder;
