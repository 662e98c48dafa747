// CPU kernel of raf.op.scatter_nd (specs/tensor/scatter_nd.yaml): x copied, then each update slice applied in order.

import type { ScatterNdKernel } from '../../../generated/bridge/scatter_nd.ts';
import { OpError } from '../../../errors.ts';
import { sizeOf, stridesOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

export const scatterNdCpu: ScatterNdKernel = ({ x, indices, updates }, { reduction }, out) => {
  const y = allocOut(out);
  const ys = y.dataSync();
  ys.set(x.dataSync() as never);
  const us = updates.dataSync();
  const idx = indices.dataSync();
  const k = indices.shape[indices.shape.length - 1]!;
  const slice = sizeOf(x.shape.slice(k));
  const strides = stridesOf(x.shape);
  const rows = k ? idx.length / k : 0;
  const bool = out.dtype === 'bool';
  for (let r = 0; r < rows; r++) {
    let off = 0;
    for (let j = 0; j < k; j++) {
      const len = x.shape[j]!;
      const v = idx[r * k + j]!;
      if (v < -len || v >= len)
        throw new OpError('scatter_nd', `index ${v} is out of range for axis of size ${len}`, 'indices');
      off += (v < 0 ? v + len : v) * strides[j]!;
    }
    for (let i = 0; i < slice; i++) {
      const u = us[r * slice + i]!;
      const at = off + i;
      if (reduction === 'add') ys[at] = bool ? Number(ys[at]! || u) : ys[at]! + u;
      else if (reduction === 'mul') ys[at] = bool ? Number(ys[at]! && u) : ys[at]! * u;
      else if (reduction === 'max') ys[at] = Math.max(ys[at]!, u);
      else if (reduction === 'min') ys[at] = Math.min(ys[at]!, u);
      else ys[at] = u;
    }
  }
  return y;
};
