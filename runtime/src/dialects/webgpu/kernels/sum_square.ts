// WebGPU kernel of raf.op.sum_square (specs/reduce/sum_square.yaml): the sum of squares, on the shared reduction kernel.

import type { SumSquareKernel } from '../../../generated/bridge/sum_square.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, SUM_SQUARE } from '../reduce.ts';

export const sumSquareWebgpu: WebGpuBuilder<SumSquareKernel> = reduction<SumSquareKernel>(SUM_SQUARE);
