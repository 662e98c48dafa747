// CPU kernel of raf.op.lrn (specs/nn/lrn.yaml): each element over its window of channels' sum of squares.

import type { LrnKernel } from '../../../generated/bridge/lrn.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut, finish } from '../support.ts';

export const lrnCpu: LrnKernel = ({ x }, { size, alpha, beta, bias }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const [n, c] = [x.shape[0]!, x.shape[1]!];
  const spatial = sizeOf(x.shape.slice(2));
  const [below, above] = [Math.floor((size - 1) / 2), Math.ceil((size - 1) / 2)];
  for (let b = 0; b < n; b++) {
    for (let ch = 0; ch < c; ch++) {
      const [lo, hi] = [Math.max(0, ch - below), Math.min(c - 1, ch + above)];
      for (let s = 0; s < spatial; s++) {
        let sq = 0;
        for (let i = lo; i <= hi; i++) sq += xs[(b * c + i) * spatial + s]! ** 2;
        const at = (b * c + ch) * spatial + s;
        ys[at] = xs[at]! / (bias + (alpha / size) * sq) ** beta;
      }
    }
  }
  return finish(y);
};
