// WebGPU kernel of raf.op.mean (specs/reduce/mean.yaml): the mean, summed then divided by the reduced count, on the shared reduction kernel.

import type { MeanKernel } from '../../../generated/bridge/mean.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, MEAN } from '../reduce.ts';

export const meanWebgpu: WebGpuBuilder<MeanKernel> = reduction<MeanKernel>(MEAN);
