// WebGPU kernel of raf.op.max (specs/reduce/max.yaml): the maximum, on the shared reduction kernel.

import type { MaxKernel } from '../../../generated/bridge/max.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, MAX } from '../reduce.ts';

export const maxWebgpu: WebGpuBuilder<MaxKernel> = reduction<MaxKernel>(MAX);
