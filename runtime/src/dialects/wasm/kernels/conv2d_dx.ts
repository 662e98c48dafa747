// Wasm kernel of raf.op.conv2d_dx (specs/nn/conv2d_dx.yaml), the transposed convolution conv_transpose.ts also runs:
// per image and group, the SIMD matrix product cols[C/g·KH·KW, OH·OW] = w_gᵀ · dy_g (w read transposed through
// strides), then col2im adds each column row onto the input positions its tap read (as/conv.ts col2im_f32; for float64
// matmul_f64 and a JavaScript loop over wasm memory).

import type { Conv2dDxKernel } from '../../../generated/bridge/conv2d_dx.ts';
import { window2d } from '../../../ops/window.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, inPtr, outBlock, WIDTH_ARRAY, widthOf } from '../support.ts';

type Col2im = (cols: number, y: number, ...dims: number[]) => void;

export const conv2dDxWasm: Conv2dDxKernel = ({ x, w, dy }, { stride, padding, dilation, groups }, out) => {
  const width = widthOf(out.dtype)!;
  const bytes = width === 'f32' ? 4 : 8;
  const g = window2d('conv2d_dx', x.shape, w.shape.slice(2), stride, padding, dilation);
  const [n, c, h, wd] = x.shape as [number, number, number, number];
  const o = w.shape[0]!;
  const { kh, kw } = g;
  const cg = c / groups;
  const og = o / groups;
  // The taps of one output position (a row of w_g) and the output positions.
  const rows = cg * kh * kw;
  const p = g.oh * g.ow;
  const plane = h * wd;
  const mod = wasm();
  const arena = callArena();
  const pw = inPtr(arena, width, w);
  const pdy = inPtr(arena, width, dy);
  const cols = allocFor(arena, width, rows * p);
  const scratch = width === 'f32' ? arena.alloc(mod.matmul_scratch_bytes()) : 0;
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const ys = arena.view(WIDTH_ARRAY[width], y.ptr, n * c * plane);
  ys.fill(0);
  const cs = arena.view(WIDTH_ARRAY[width], cols, rows * p);
  for (let b = 0; b < n; b++) {
    for (let gi = 0; gi < groups; gi++) {
      // w_g is [og, rows] row-major: as A = w_gᵀ [rows × og], element (i, q) sits at q·rows + i.
      const wg = pw + gi * og * rows * bytes;
      const dyg = pdy + (b * o + gi * og) * p * bytes;
      const xg = (b * c + gi * cg) * plane;
      if (width === 'f32') {
        mod.matmul_f32(wg, 1, rows, dyg, p, 1, cols, rows, p, og, scratch);
        (mod.col2im_f32 as Col2im)(
          cols,
          y.ptr + xg * 4,
          rows,
          g.oh,
          g.ow,
          kh,
          kw,
          g.sh,
          g.sw,
          g.dh,
          g.dw,
          g.padTop,
          g.padLeft,
          h,
          wd,
        );
        continue;
      }
      mod.matmul_f64(wg, 1, rows, dyg, p, 1, cols, rows, p, og);
      for (let r = 0; r < rows; r++) {
        const kx = r % kw;
        const ky = ((r - kx) / kw) % kh;
        const base = xg + Math.floor(r / (kh * kw)) * plane;
        const src = r * p;
        for (let oy = 0; oy < g.oh; oy++) {
          const iy = oy * g.sh - g.padTop + ky * g.dh;
          if (iy < 0 || iy >= h) continue;
          const rowOut = base + iy * wd;
          const rowIn = src + oy * g.ow;
          for (let ox = 0; ox < g.ow; ox++) {
            const ix = ox * g.sw - g.padLeft + kx * g.dw;
            if (ix >= 0 && ix < wd) ys[rowOut + ix] += cs[rowIn + ox]!;
          }
        }
      }
    }
  }
  return y.tensor();
};
