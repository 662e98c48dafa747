// WebGPU kernel of raf.op.take_dx (specs/tensor/take_dx.yaml), also embedding's backward: dy summed per index.

import type { TakeDxKernel } from '../../../generated/bridge/take_dx.ts';
import { takeDx, takeDxBuilder } from '../indexed.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const takeDxWebgpu: WebGpuBuilder<TakeDxKernel> = (_attrs, out, { x, indices, dy }) => {
  const gpu = takeDxBuilder(x, indices, dy, out);
  return gpu && (({ x, indices, dy }, { axis }, kout) => takeDx(gpu, x, indices, dy, axis, kout));
};
