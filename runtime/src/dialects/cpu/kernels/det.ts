// CPU kernel of raf.op.det (specs/linalg/det.yaml): per matrix, LU decomposition with partial pivoting in float64;
// the determinant is the product of the pivots, negated per row swap. An empty (0 x 0) matrix has determinant 1.

import type { DetKernel } from '../../../generated/bridge/det.ts';
import { allocOut } from '../support.ts';

export const detCpu: DetKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync() as ArrayLike<number>;
  const ys = y.dataSync() as Float32Array | Float64Array;
  const m = x.shape[x.shape.length - 1]!;
  const a = new Float64Array(m * m);
  for (let b = 0; b < ys.length; b++) {
    for (let i = 0; i < m * m; i++) a[i] = xs[b * m * m + i]!;
    let det = 1;
    for (let k = 0; k < m; k++) {
      let p = k;
      for (let i = k + 1; i < m; i++) if (Math.abs(a[i * m + k]!) > Math.abs(a[p * m + k]!)) p = i;
      const pivot = a[p * m + k]!;
      if (pivot === 0 || Number.isNaN(pivot)) {
        det = pivot === 0 ? 0 : NaN;
        break;
      }
      if (p !== k) {
        for (let j = 0; j < m; j++) [a[k * m + j], a[p * m + j]] = [a[p * m + j]!, a[k * m + j]!];
        det = -det;
      }
      det *= pivot;
      for (let i = k + 1; i < m; i++) {
        const f = a[i * m + k]! / pivot;
        if (f !== 0) for (let j = k + 1; j < m; j++) a[i * m + j] -= f * a[k * m + j]!;
      }
    }
    ys[b] = det;
  }
  return y;
};
