// WebGPU kernel of raf.op.reduce_l1 (specs/reduce/reduce_l1.yaml): the L1 norm, sum of |x|, on the shared reduction kernel.

import type { ReduceL1Kernel } from '../../../generated/bridge/reduce_l1.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, REDUCE_L1 } from '../reduce.ts';

export const reduceL1Webgpu: WebGpuBuilder<ReduceL1Kernel> = reduction<ReduceL1Kernel>(REDUCE_L1);
