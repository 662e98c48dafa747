// WebGPU kernel of raf.op.nll_loss_dx (specs/nn/nll_loss_dx.yaml): one invocation per row of x.

import type { NllLossDxKernel } from '../../../generated/bridge/nll_loss_dx.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { lossBuilder, lossDx } from '../loss.ts';

export const nllLossDxWebgpu: WebGpuBuilder<NllLossDxKernel> = (_attrs, out, { x, target, dy }) => {
  const gpu = lossBuilder('nll_loss', out, x, target, dy);
  return gpu && (({ x, target, dy }, _kattrs, kout) => lossDx(gpu, 'nll_loss', x, target, dy, kout));
};
