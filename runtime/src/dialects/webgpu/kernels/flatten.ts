// WebGPU kernel of raf.op.flatten (specs/tensor/flatten.yaml): a view of the input's buffer under
// the new shape (no copy, no shader), any dtype.
// raf-op-ignores: axis (the output type it is given already has the 2-D shape)

import type { FlattenKernel } from '../../../generated/bridge/flatten.ts';
import { viewBuilder } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const flattenWebgpu: WebGpuBuilder<FlattenKernel> = viewBuilder;
