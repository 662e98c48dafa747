// Element-wise gather along one axis (gather_elements) and its scatter-add adjoint: index j of indices reads x where
// j's coordinates are, with the axis' coordinate replaced by indices[j]. Negative indices count from the end.

import { OpError } from '../../errors.ts';
import { normalizeAxis, stridesOf } from '../../shape.ts';
import type { Tensor } from '../../tensor.ts';

/** Visits (indexPosition, xIndex) for every element of indices. */
export function forEachElementGather(
  op: string,
  x: Tensor,
  indices: Tensor,
  axis: number,
  visit: (j: number, xi: number) => void,
): void {
  const rank = x.shape.length;
  const a = normalizeAxis(axis, rank);
  const xStrides = stridesOf(x.shape);
  const len = x.shape[a]!;
  const idx = indices.dataSync();
  const shape = indices.shape;
  const coord = new Array<number>(rank).fill(0);
  for (let j = 0; j < idx.length; j++) {
    let k = idx[j]!;
    if (k < 0) k += len;
    if (k < 0 || k >= len) throw new OpError(op, `index ${idx[j]} is out of range for axis of size ${len}`, 'indices');
    let off = 0;
    for (let d = 0; d < rank; d++) off += (d === a ? k : coord[d]!) * xStrides[d]!;
    visit(j, off);
    for (let d = rank - 1; d >= 0; d--) {
      if (++coord[d]! < shape[d]!) break;
      coord[d] = 0;
    }
  }
}
