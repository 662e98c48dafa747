// CPU kernel of raf.op.batch_norm (specs/nn/batch_norm.yaml): one affine map per channel, its coefficients in float64.

import type { BatchNormKernel } from '../../../generated/bridge/batch_norm.ts';
import { aroundAxis, allocOut, finish } from '../support.ts';

export const batchNormCpu: BatchNormKernel = ({ x, scale, bias, mean, variance }, { axis, epsilon }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const [s, b, m, v] = [scale.dataSync(), bias.dataSync(), mean.dataSync(), variance.dataSync()];
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  for (let c = 0; c < len; c++) {
    const k = s[c]! / Math.sqrt(v[c]! + epsilon);
    const d = b[c]! - m[c]! * k;
    for (let o = 0; o < outer; o++) {
      const base = (o * len + c) * inner;
      for (let i = 0; i < inner; i++) ys[base + i] = xs[base + i]! * k + d;
    }
  }
  return finish(y);
};
