// WebGPU kernel of raf.op.embedding (specs/nn/embedding.yaml): take along axis 0 of weight.

import type { EmbeddingKernel } from '../../../generated/bridge/embedding.ts';
import { take, takeBuilder } from '../indexed.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const embeddingWebgpu: WebGpuBuilder<EmbeddingKernel> = (_attrs, _out, { weight, indices }) => {
  const gpu = takeBuilder(weight, indices);
  return gpu && (({ weight, indices }, _kattrs, kout) => take(gpu, weight, indices, 0, kout, 'embedding'));
};
