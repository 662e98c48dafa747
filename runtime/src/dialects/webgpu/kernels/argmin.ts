// WebGPU kernel of raf.op.argmin (specs/reduce/argmin.yaml): the index of the first minimum, as int32, on the shared reduction kernel.

import type { ArgminKernel } from '../../../generated/bridge/argmin.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, ARGMIN } from '../reduce.ts';

export const argminWebgpu: WebGpuBuilder<ArgminKernel> = reduction<ArgminKernel>(ARGMIN);
