// CPU kernel of raf.op.affine_grid (specs/nn/affine_grid.yaml): theta[n] times each base point (x, y[, z], 1), in
// float64; x runs along the innermost spatial axis.

import type { AffineGridKernel } from '../../../generated/bridge/affine_grid.ts';
import { allocOut, finish } from '../support.ts';

export const affineGridCpu: AffineGridKernel = ({ theta }, { size, align_corners }, out) => {
  const y = allocOut(out);
  const k = size.length - 2;
  const N = size[0]!;
  const dims = size.slice(2);
  const points = dims.reduce((p, d) => p * d, 1);
  const tv = theta.dataSync();
  const yv = y.dataSync();
  // A one-pixel axis with align_corners sits at +1, as onnxruntime places it (NumPy's linspace would say -1, PyTorch 0).
  const coord = (i: number, d: number) => (align_corners ? (d > 1 ? -1 + (2 * i) / (d - 1) : 1) : (2 * i + 1) / d - 1);
  const base = new Array<number>(k + 1).fill(1);
  for (let n = 0; n < N; n++) {
    for (let p = 0; p < points; p++) {
      let rest = p;
      // Spatial axes outer to inner are (z,) y, x: base holds (x, y[, z], 1).
      for (let a = k - 1; a >= 0; a--) {
        const d = dims[a]!;
        base[k - 1 - a] = coord(rest % d, d);
        rest = Math.floor(rest / d);
      }
      for (let row = 0; row < k; row++) {
        let v = 0;
        for (let c = 0; c <= k; c++) v += tv[(n * k + row) * (k + 1) + c]! * base[c]!;
        yv[(n * points + p) * k + row] = v;
      }
    }
  }
  return finish(y);
};
