// CPU kernel of raf.op.softmax (specs/nn/softmax.yaml): max-subtracted for stability, one pass per row.

import type { SoftmaxKernel } from '../../../generated/bridge/softmax.ts';
import { allocOut, aroundAxis, finish } from '../support.ts';

export const softmaxCpu: SoftmaxKernel = ({ x }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      let max = -Infinity;
      for (let k = 0; k < len; k++) max = Math.max(max, xs[base + k * inner]!);
      let sum = 0;
      for (let k = 0; k < len; k++) {
        const e = Math.exp(xs[base + k * inner]! - max);
        ys[base + k * inner] = e;
        sum += e;
      }
      for (let k = 0; k < len; k++) ys[base + k * inner]! /= sum;
    }
  }
  return finish(y);
};
