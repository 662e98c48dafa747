// Pooling windows for CPU kernels: for each output position, the in-bounds input positions of its window.

import type { Window2d } from '../../ops/window.ts';

/**
 * Calls visit(outIndex, taps, padded) per output element, where taps lists the flat input indices
 * inside the image and padded counts the window positions that fell on padding.
 */
export function forEachWindow(
  shape: readonly number[],
  g: Window2d,
  visit: (yi: number, taps: readonly number[], padded: number) => void,
): void {
  const [n, c, h, w] = shape as [number, number, number, number];
  const taps: number[] = [];
  for (let p = 0; p < n * c; p++) {
    for (let oy = 0; oy < g.oh; oy++) {
      for (let ox = 0; ox < g.ow; ox++) {
        taps.length = 0;
        let padded = 0;
        for (let ky = 0; ky < g.kh; ky++) {
          const iy = oy * g.sh - g.padTop + ky;
          for (let kx = 0; kx < g.kw; kx++) {
            const ix = ox * g.sw - g.padLeft + kx;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) padded++;
            else taps.push((p * h + iy) * w + ix);
          }
        }
        visit((p * g.oh + oy) * g.ow + ox, taps, padded);
      }
    }
  }
}

/**
 * Padding past the input's far edge only counts toward count_include_pad when it is real padding,
 * not the part of a window hanging beyond the bottom/right pads (ONNX and PyTorch agree on this).
 */
export function windowArea(
  g: Window2d,
  shape: readonly number[],
  padBottom: number,
  padRight: number,
  yi: number,
): number {
  const ox = yi % g.ow;
  const oy = Math.floor(yi / g.ow) % g.oh;
  const y0 = oy * g.sh - g.padTop;
  const x0 = ox * g.sw - g.padLeft;
  const y1 = Math.min(y0 + g.kh, shape[2]! + padBottom);
  const x1 = Math.min(x0 + g.kw, shape[3]! + padRight);
  return (y1 - y0) * (x1 - x0);
}
