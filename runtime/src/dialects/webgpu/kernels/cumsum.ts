// WebGPU kernel of raf.op.cumsum (specs/tensor/cumsum.yaml), on the shared scan kernel.

import type { CumsumKernel } from '../../../generated/bridge/cumsum.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { scan } from '../scan.ts';

export const cumsumWebgpu: WebGpuBuilder<CumsumKernel> = scan<CumsumKernel>({
  op: 'cumsum',
  identity: 0,
  step: 'acc + v',
});
