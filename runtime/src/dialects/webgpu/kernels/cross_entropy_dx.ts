// WebGPU kernel of raf.op.cross_entropy_dx (specs/nn/cross_entropy_dx.yaml): one invocation per row of x.

import type { CrossEntropyDxKernel } from '../../../generated/bridge/cross_entropy_dx.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { lossBuilder, lossDx } from '../loss.ts';

export const crossEntropyDxWebgpu: WebGpuBuilder<CrossEntropyDxKernel> = (_attrs, out, { x, target, dy }) => {
  const gpu = lossBuilder('cross_entropy', out, x, target, dy);
  return gpu && (({ x, target, dy }, _kattrs, kout) => lossDx(gpu, 'cross_entropy', x, target, dy, kout));
};
