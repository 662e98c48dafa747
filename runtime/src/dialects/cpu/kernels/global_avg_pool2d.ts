// CPU kernel of raf.op.global_avg_pool2d (specs/nn/global_avg_pool2d.yaml): one float64 sum per (n, c) plane.

import type { GlobalAvgPool2dKernel } from '../../../generated/bridge/global_avg_pool2d.ts';
import { allocOut, finish } from '../support.ts';

export const globalAvgPool2dCpu: GlobalAvgPool2dKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const ys = y.dataSync();
  globalAvgLoop(x.dataSync(), ys, ys.length, x.shape[2]! * x.shape[3]!);
  return finish(y);
};

/** ys[p] = the mean of plane p of xs; the wasm kernel runs it over wasm memory. */
export function globalAvgLoop(xs: ArrayLike<number>, ys: { [i: number]: number }, planes: number, plane: number): void {
  for (let p = 0; p < planes; p++) {
    let s = 0;
    for (let i = p * plane; i < (p + 1) * plane; i++) s += xs[i]!;
    ys[p] = s / plane;
  }
}
