// WebGPU kernel of raf.op.sum (specs/reduce/sum.yaml), on the shared reduction kernel.

import type { SumKernel } from '../../../generated/bridge/sum.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, SUM } from '../reduce.ts';

export const sumWebgpu: WebGpuBuilder<SumKernel> = reduction<SumKernel>(SUM);
