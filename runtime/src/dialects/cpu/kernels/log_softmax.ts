// CPU kernel of raf.op.log_softmax (specs/nn/log_softmax.yaml): x - max - log(sum(exp(x - max))).

import type { LogSoftmaxKernel } from '../../../generated/bridge/log_softmax.ts';
import { allocOut, aroundAxis, finish } from '../support.ts';

export const logSoftmaxCpu: LogSoftmaxKernel = ({ x }, { axis }, out) => {
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
      for (let k = 0; k < len; k++) sum += Math.exp(xs[base + k * inner]! - max);
      const shift = max + Math.log(sum);
      for (let k = 0; k < len; k++) ys[base + k * inner] = xs[base + k * inner]! - shift;
    }
  }
  return finish(y);
};
