// CPU kernel of raf.op.gather_nd (specs/tensor/gather_nd.yaml): per batch entry (the batch_dims leading axes x and
// indices share), each index tuple of indices' last axis names a slice of x's following axes, copied in order.

import type { GatherNdKernel } from '../../../generated/bridge/gather_nd.ts';
import { OpError } from '../../../errors.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

export const gatherNdCpu: GatherNdKernel = ({ x, indices }, { batch_dims }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const idx = indices.dataSync();
  const k = indices.shape[indices.shape.length - 1]!;
  const batches = sizeOf(x.shape.slice(0, batch_dims));
  const rows = sizeOf(indices.shape.slice(batch_dims, -1));
  const slice = sizeOf(x.shape.slice(batch_dims + k));
  const perBatch = sizeOf(x.shape.slice(batch_dims));
  const dims = x.shape.slice(batch_dims, batch_dims + k);
  for (let b = 0; b < batches; b++) {
    for (let r = 0; r < rows; r++) {
      const row = b * rows + r;
      let off = 0;
      for (let j = 0; j < k; j++) {
        const len = dims[j]!;
        const v = idx[row * k + j]!;
        if (v < -len || v >= len)
          throw new OpError('gather_nd', `index ${v} is out of range for axis of size ${len}`, 'indices');
        off = off * len + (v < 0 ? v + len : v);
      }
      const from = b * perBatch + off * slice;
      for (let i = 0; i < slice; i++) ys[row * slice + i] = xs[from + i]!;
    }
  }
  return y;
};
