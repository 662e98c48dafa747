// WebGPU kernel of raf.op.reduce_l2 (specs/reduce/reduce_l2.yaml): the L2 norm, the square root of the sum of squares, on the shared reduction kernel.

import type { ReduceL2Kernel } from '../../../generated/bridge/reduce_l2.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, REDUCE_L2 } from '../reduce.ts';

export const reduceL2Webgpu: WebGpuBuilder<ReduceL2Kernel> = reduction<ReduceL2Kernel>(REDUCE_L2);
