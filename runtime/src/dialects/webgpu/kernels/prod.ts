// WebGPU kernel of raf.op.prod (specs/reduce/prod.yaml): the product, on the shared reduction kernel.

import type { ProdKernel } from '../../../generated/bridge/prod.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { reduction, PROD } from '../reduce.ts';

export const prodWebgpu: WebGpuBuilder<ProdKernel> = reduction<ProdKernel>(PROD);
