// WebGPU kernel of raf.op.cumprod (specs/tensor/cumprod.yaml), on the shared scan kernel.

import type { CumprodKernel } from '../../../generated/bridge/cumprod.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { scan } from '../scan.ts';

export const cumprodWebgpu: WebGpuBuilder<CumprodKernel> = scan<CumprodKernel>({
  op: 'cumprod',
  identity: 1,
  step: 'acc * v',
});
