// WebGPU kernel of raf.op.cross_entropy (specs/nn/cross_entropy.yaml): per-row losses in parallel, then their mean.

import type { CrossEntropyKernel } from '../../../generated/bridge/cross_entropy.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { loss, lossBuilder } from '../loss.ts';

export const crossEntropyWebgpu: WebGpuBuilder<CrossEntropyKernel> = (_attrs, out, { x, target }) => {
  const gpu = lossBuilder('cross_entropy', out, x, target);
  return gpu && (({ x, target }, _kattrs, kout) => loss(gpu, 'cross_entropy', x, target, kout));
};
