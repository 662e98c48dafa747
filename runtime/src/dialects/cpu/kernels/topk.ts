// CPU kernel of raf.op.topk (specs/tensor/topk.yaml): each line along axis sorted by value (ties: lower index first;
// NaN above +inf), its first k kept. raf-op-ignores: sorted (the result is always sorted, which ONNX allows for sorted = 0).

import type { TopkKernel } from '../../../generated/bridge/topk.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

/**
 * Sort order of two values: NaN ranks above every number, +inf included (PyTorch's topk), so NaNs come first when
 * largest and last otherwise. Comparisons, not a difference: inf - inf is NaN, which no comparator may return.
 */
function before(a: number, b: number, largest: boolean): number {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an === largest ? -1 : 1;
  if (a === b) return 0;
  return a > b === largest ? -1 : 1;
}

export const topkCpu: TopkKernel = ({ x }, { k, axis, largest }, outs) => {
  const values = allocOut(outs[0]!);
  const indices = allocOut(outs[1]!);
  const xv = x.dataSync();
  const vv = values.dataSync();
  const iv = indices.dataSync();
  const len = x.shape[axis]!;
  const inner = sizeOf(x.shape.slice(axis + 1));
  const outer = sizeOf(x.shape.slice(0, axis));
  const order = Array.from({ length: len }, (_, t) => t);
  for (let o = 0; o < outer; o++) {
    for (let r = 0; r < inner; r++) {
      const at = (t: number) => xv[(o * len + t) * inner + r]!;
      order.forEach((_, t) => (order[t] = t));
      // A stable sort keeps equal values (and NaNs) in index order.
      order.sort((a, b) => before(at(a), at(b), largest));
      for (let j = 0; j < k; j++) {
        const dst = (o * k + j) * inner + r;
        vv[dst] = at(order[j]!);
        iv[dst] = order[j]!;
      }
    }
  }
  return [values, indices];
};
