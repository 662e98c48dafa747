// CPU kernel of raf.op.avg_pool2d (specs/nn/avg_pool2d.yaml): window sums in float64 over the counted positions. Each
// window's in-bounds rows and columns are clipped once, so the inner loops test nothing.

import type { AvgPool2dKernel } from '../../../generated/bridge/avg_pool2d.ts';
import { padding4, window2d, type Window2d } from '../../../ops/window.ts';
import { allocOut, finish } from '../support.ts';

export const avgPool2dCpu: AvgPool2dKernel = ({ x }, { kernel, stride, padding, count_include_pad }, out) => {
  const y = allocOut(out);
  const g = window2d('avg_pool2d', x.shape, kernel, stride, padding);
  const [, , pb, pr] = padding4('avg_pool2d', padding);
  avgPoolLoop(x.dataSync(), y.dataSync(), x.shape, g, count_include_pad ? [pb, pr] : null);
  return finish(y);
};

/**
 * The mean over each window of xs into ys; the wasm kernel runs it over wasm memory for float64. The divisor is the
 * window's cells inside the image, or with `padEnd` ([bottom, right] padding: count_include_pad) every cell up to the
 * padded image's edge. A window wholly in the padding divides 0 by 0.
 */
export function avgPoolLoop(
  xs: ArrayLike<number>,
  ys: { [i: number]: number },
  shape: readonly number[],
  g: Window2d,
  padEnd: readonly [number, number] | null,
): void {
  const [n, c, h, w] = shape as [number, number, number, number];
  let yi = 0;
  for (let p = 0; p < n * c; p++) {
    const plane = p * h * w;
    for (let oy = 0; oy < g.oh; oy++) {
      const y0 = oy * g.sh - g.padTop;
      const ky0 = Math.max(0, y0);
      const ky1 = Math.min(h, y0 + g.kh);
      const rows = padEnd ? Math.min(y0 + g.kh, h + padEnd[0]) - y0 : ky1 - ky0;
      for (let ox = 0; ox < g.ow; ox++) {
        const x0 = ox * g.sw - g.padLeft;
        const kx0 = Math.max(0, x0);
        const kx1 = Math.min(w, x0 + g.kw);
        const cols = padEnd ? Math.min(x0 + g.kw, w + padEnd[1]) - x0 : kx1 - kx0;
        let sum = 0;
        for (let iy = ky0; iy < ky1; iy++) {
          const row = plane + iy * w;
          for (let ix = kx0; ix < kx1; ix++) sum += xs[row + ix]!;
        }
        ys[yi++] = sum / (Math.max(rows, 0) * Math.max(cols, 0));
      }
    }
  }
}
