// CPU kernel of raf.op.batch_norm (specs/nn/batch_norm.yaml): one affine map per channel, its coefficients in float64.

import type { BatchNormKernel } from '../../../generated/bridge/batch_norm.ts';
import type { Storage } from '../../../dtype.ts';
import { aroundAxis, allocOut, finish } from '../support.ts';

export const batchNormCpu: BatchNormKernel = ({ x, scale, bias, mean, variance }, { axis, epsilon }, out) => {
  const y = allocOut(out);
  batchNormLoop(x.dataSync(), y.dataSync(), [scale, bias, mean, variance].map((t) => t.dataSync()) as Params, {
    ...aroundAxis(x.shape, axis),
    epsilon,
  });
  return finish(y);
};

type Params = [Storage, Storage, Storage, Storage];

/** ys = (xs − mean)·scale/√(variance + ε) + bias per channel; the wasm kernel runs it over wasm memory. */
export function batchNormLoop(
  xs: ArrayLike<number>,
  ys: { [i: number]: number },
  [s, b, m, v]: Params,
  { outer, len, inner, epsilon }: { outer: number; len: number; inner: number; epsilon: number },
): void {
  for (let c = 0; c < len; c++) {
    const k = s[c]! / Math.sqrt(v[c]! + epsilon);
    const d = b[c]! - m[c]! * k;
    for (let o = 0; o < outer; o++) {
      const base = (o * len + c) * inner;
      for (let i = 0; i < inner; i++) ys[base + i] = xs[base + i]! * k + d;
    }
  }
}
