// Scans (cumulative folds) along one axis for CPU kernels: cumsum, cumprod and cumsum's reverse-order adjoint.

import type { Tensor, TensorType } from '../../tensor.ts';
import { aroundAxis, allocOut, finish } from './support.ts';

/**
 * out[k] = fold of x over positions before k (exclusive) or up to k (inclusive) along axis, in the
 * output's dtype (TVM's accumulation dtype: int32 sums wrap like int32, float64 sums stay exact).
 * `reverse` folds from the end, which is the adjoint of a forward scan.
 */
export function scan(
  x: Tensor,
  axis: number | null,
  out: TensorType,
  identity: number,
  step: (acc: number, v: number) => number,
  exclusive: boolean,
  reverse = false,
): Tensor {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const { outer, len, inner } = axis === null ? { outer: 1, len: xs.length, inner: 1 } : aroundAxis(x.shape, axis);
  // Round every partial result to the output dtype, as a scan in that dtype would.
  const acc = ys.subarray(0, 1).slice();
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      acc[0] = identity;
      for (let t = 0; t < len; t++) {
        const k = reverse ? len - 1 - t : t;
        const at = (o * len + k) * inner + i;
        if (exclusive) {
          ys[at] = acc[0]!;
          acc[0] = step(acc[0]!, xs[at]!);
        } else {
          acc[0] = step(acc[0]!, xs[at]!);
          ys[at] = acc[0]!;
        }
      }
    }
  }
  return finish(y);
}
