// WebGPU kernel of raf.op.min (specs/reduce/min.yaml): the minimum, on the shared reduction kernel.

import type { MinKernel } from '../../../generated/bridge/min.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, MIN } from '../reduce.ts';

export const minWebgpu: WebGpuBuilder<MinKernel> = reduction<MinKernel>(MIN);
