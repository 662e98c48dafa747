// WebGPU kernel of raf.op.logsumexp (specs/reduce/logsumexp.yaml): log(sum(exp(x))), shifted by the maximum, on the shared reduction kernel.

import type { LogsumexpKernel } from '../../../generated/bridge/logsumexp.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, LOGSUMEXP } from '../reduce.ts';

export const logsumexpWebgpu: WebGpuBuilder<LogsumexpKernel> = reduction<LogsumexpKernel>(LOGSUMEXP);
