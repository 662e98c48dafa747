// CPU kernel of raf.op.embedding (specs/nn/embedding.yaml): a gather of weight rows.

import type { EmbeddingKernel } from '../../../generated/bridge/embedding.ts';
import { forEachGather } from '../gather.ts';
import { allocOut } from '../support.ts';

export const embeddingCpu: EmbeddingKernel = ({ weight, indices }, _attrs, out) => {
  const y = allocOut(out);
  const ws = weight.dataSync();
  const ys = y.dataSync();
  forEachGather('embedding', weight, indices, 0, (yi, wi) => (ys[yi] = ws[wi]!));
  return y;
};
