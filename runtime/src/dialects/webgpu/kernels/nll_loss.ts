// WebGPU kernel of raf.op.nll_loss (specs/nn/nll_loss.yaml): per-row losses in parallel, then their mean.

import type { NllLossKernel } from '../../../generated/bridge/nll_loss.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { loss, lossBuilder } from '../loss.ts';

export const nllLossWebgpu: WebGpuBuilder<NllLossKernel> = (_attrs, out, { x, target }) => {
  const gpu = lossBuilder('nll_loss', out, x, target);
  return gpu && (({ x, target }, _kattrs, kout) => loss(gpu, 'nll_loss', x, target, kout));
};
