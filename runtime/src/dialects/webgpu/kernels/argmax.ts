// WebGPU kernel of raf.op.argmax (specs/reduce/argmax.yaml): the index of the first maximum, as int32, on the shared reduction kernel.

import type { ArgmaxKernel } from '../../../generated/bridge/argmax.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, ARGMAX } from '../reduce.ts';

export const argmaxWebgpu: WebGpuBuilder<ArgmaxKernel> = reduction<ArgmaxKernel>(ARGMAX);
