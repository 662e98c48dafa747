// WebGPU kernel of raf.op.cumsum_dx (specs/tensor/cumsum_dx.yaml): the adjoint of a prefix sum is a suffix sum of dy.

import type { CumsumDxKernel } from '../../../generated/bridge/cumsum_dx.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { scan } from '../scan.ts';

export const cumsumDxWebgpu: WebGpuBuilder<CumsumDxKernel> = scan<CumsumDxKernel>(
  { op: 'cumsum_dx', identity: 0, step: 'acc + v', reverse: true },
  'dy',
);
