// CPU kernel of raf.op.max_pool2d (specs/nn/max_pool2d.yaml): padding never wins, so it acts as -inf. Each window's
// in-bounds rows and columns are clipped once, so the inner loops test nothing.

import type { MaxPool2dKernel } from '../../../generated/bridge/max_pool2d.ts';
import { window2d, type Window2d } from '../../../ops/window.ts';
import { allocOut, finish } from '../support.ts';

export const maxPool2dCpu: MaxPool2dKernel = ({ x }, { kernel, stride, padding }, out) => {
  const y = allocOut(out);
  const g = window2d('max_pool2d', x.shape, kernel, stride, padding);
  maxPoolLoop(x.dataSync(), y.dataSync(), x.shape, g);
  return finish(y);
};

/** The max over each window of xs into ys; the wasm kernel runs it over wasm memory. */
export function maxPoolLoop(
  xs: ArrayLike<number>,
  ys: { [i: number]: number },
  shape: readonly number[],
  g: Window2d,
): void {
  const [n, c, h, w] = shape as [number, number, number, number];
  let yi = 0;
  for (let p = 0; p < n * c; p++) {
    const plane = p * h * w;
    for (let oy = 0; oy < g.oh; oy++) {
      const y0 = oy * g.sh - g.padTop;
      const ky0 = Math.max(0, y0);
      const ky1 = Math.min(h, y0 + g.kh);
      for (let ox = 0; ox < g.ow; ox++) {
        const x0 = ox * g.sw - g.padLeft;
        const kx0 = Math.max(0, x0);
        const kx1 = Math.min(w, x0 + g.kw);
        let best = -Infinity;
        for (let iy = ky0; iy < ky1; iy++) {
          const row = plane + iy * w;
          for (let ix = kx0; ix < kx1; ix++) {
            const v = xs[row + ix]!;
            // A NaN wins and stays, as with Math.max.
            if (v > best || v !== v) best = v;
          }
        }
        ys[yi++] = best;
      }
    }
  }
}
