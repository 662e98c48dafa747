// WebGPU kernel of raf.op.log_sum (specs/reduce/log_sum.yaml): the log of the sum, on the shared reduction kernel.

import type { LogSumKernel } from '../../../generated/bridge/log_sum.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, LOG_SUM } from '../reduce.ts';

export const logSumWebgpu: WebGpuBuilder<LogSumKernel> = reduction<LogSumKernel>(LOG_SUM);
