// Wasm kernel of raf.op.conv_transpose (specs/nn/conv_transpose.yaml): per image and group, the SIMD matrix product
// cols[O/g·KH·KW, H·W] = w_gᵀ · x_g (w read transposed through strides), then col2im: each column row scatters onto
// the output positions its tap reaches (as/conv.ts col2im_f32; for float64 a JavaScript loop over wasm memory), on top
// of the bias.

import type { ConvTransposeKernel } from '../../../generated/bridge/conv_transpose.ts';
import { convTransposeGeometry } from '../../../ops/conv_transpose.rule.ts';
import { window2d } from '../../../ops/window.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, inPtr, outBlock, residentView, WIDTH_ARRAY, widthOf } from '../support.ts';

type Col2im = (cols: number, y: number, ...dims: number[]) => void;

export const convTransposeWasm: ConvTransposeKernel = ({ x, w, bias }, attrs, out) => {
  const { groups } = attrs;
  const geo = convTransposeGeometry({ x, w, ...attrs });
  const width = widthOf(out.dtype)!;
  const bytes = width === 'f32' ? 4 : 8;
  // The conv2d whose backward this is reads the output as its input and makes x's spatial size.
  const g = window2d('conv_transpose', geo.out4, geo.w4.slice(2), geo.stride, geo.padding, geo.dilation);
  const [n, c, h, wd] = geo.x4 as [number, number, number, number];
  const [, o, oh, ow] = geo.out4 as [number, number, number, number];
  const { kh, kw } = g;
  const cg = c / groups;
  const og = o / groups;
  const rows = og * kh * kw;
  const p = h * wd;
  const mod = wasm();
  const arena = callArena();
  const px = inPtr(arena, width, x);
  const pw = inPtr(arena, width, w);
  const cols = allocFor(arena, width, rows * p);
  const scratch = width === 'f32' ? arena.alloc(mod.matmul_scratch_bytes()) : 0;
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const biasView = bias ? (residentView(arena, bias) ?? bias.dataSync()) : null;
  const ys = arena.view(WIDTH_ARRAY[width], y.ptr, n * o * oh * ow);
  const cs = arena.view(WIDTH_ARRAY[width], cols, rows * p);
  const plane = oh * ow;
  for (let b = 0; b < n; b++) {
    for (let oc = 0; oc < o; oc++)
      ys.fill(biasView ? biasView[oc]! : 0, (b * o + oc) * plane, (b * o + oc + 1) * plane);
    for (let gi = 0; gi < groups; gi++) {
      // w_g is [cg, rows] row-major: as A = w_gᵀ [rows × cg], element (i, q) sits at q·rows + i.
      const wg = pw + gi * cg * rows * bytes;
      const xg = px + (b * c + gi * cg) * p * bytes;
      if (width === 'f32') {
        mod.matmul_f32(wg, 1, rows, xg, p, 1, cols, rows, p, cg, scratch);
        const yg = y.ptr + (b * o + gi * og) * plane * 4;
        (mod.col2im_f32 as Col2im)(cols, yg, rows, h, wd, kh, kw, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padLeft, oh, ow);
        continue;
      }
      mod.matmul_f64(wg, 1, rows, xg, p, 1, cols, rows, p, cg);
      for (let r = 0; r < rows; r++) {
        const kx = r % kw;
        const ky = ((r - kx) / kw) % kh;
        const oc = gi * og + Math.floor(r / (kh * kw));
        const base = (b * o + oc) * plane;
        const src = r * p;
        for (let iy = 0; iy < h; iy++) {
          const yy = iy * g.sh - g.padTop + ky * g.dh;
          if (yy < 0 || yy >= oh) continue;
          const rowOut = base + yy * ow;
          const rowIn = src + iy * wd;
          for (let ix = 0; ix < wd; ix++) {
            const xx = ix * g.sw - g.padLeft + kx * g.dw;
            if (xx >= 0 && xx < ow) ys[rowOut + xx] += cs[rowIn + ix]!;
          }
        }
      }
    }
  }
  return y.tensor();
};
