// CPU kernel of raf.op.embedding (specs/nn/embedding.yaml): a gather of weight rows.

import type { EmbeddingKernel } from '../../../generated/bridge/embedding.ts';
import { gatherCopy } from '../gather.ts';
import { allocOut } from '../support.ts';

export const embeddingCpu: EmbeddingKernel = ({ weight, indices }, _attrs, out) => {
  const y = allocOut(out);
  gatherCopy('embedding', weight, indices, 0, y.dataSync());
  return y;
};
