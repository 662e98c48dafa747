// Gather and its scatter-add adjoint along one axis, shared by the take, take_dx and embedding CPU kernels.

import { OpError } from '../../errors.ts';
import type { Tensor } from '../../tensor.ts';
import { aroundAxis } from './support.ts';

/** Visits (outIndex, inIndex) pairs of x[..., indices[j], ...] along axis; negative indices count from the end. */
export function forEachGather(
  op: string,
  x: Tensor,
  indices: Tensor,
  axis: number,
  visit: (yi: number, xi: number) => void,
): void {
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  const idx = indices.dataSync();
  const m = idx.length;
  for (let j = 0; j < m; j++) {
    let k = idx[j]!;
    if (k < 0) k += len;
    if (k < 0 || k >= len) throw new OpError(op, `index ${idx[j]} is out of range for axis of size ${len}`, 'indices');
    for (let o = 0; o < outer; o++) {
      const src = (o * len + k) * inner;
      const dst = (o * m + j) * inner;
      for (let i = 0; i < inner; i++) visit(dst + i, src + i);
    }
  }
}
