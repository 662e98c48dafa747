// Wasm kernel of raf.op.conv2d_dw (specs/nn/conv2d_dw.yaml): per group, dw_g[O/g, C/g·KH·KW] = Σ over images of
// dy_g · im2col(x_g)ᵀ. For float32 the images of a chunk go into one SIMD matrix product whose inner dimension runs
// over every image's output positions (dy_g's rows and im2col's rows copied side by side, so the blocked product packs
// once per chunk, not once per image); float64 takes im2col_f64 and matmul_f64 per image.

import type { Conv2dDwKernel } from '../../../generated/bridge/conv2d_dw.ts';
import { window2d } from '../../../ops/window.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, inPtr, outBlock, WIDTH_ARRAY, widthOf } from '../support.ts';

/** Floats of im2col a float32 chunk may hold (16 MiB): the images of a chunk share one product. */
let chunkFloats = 1 << 22;

/** Sets the float32 chunk's im2col size in floats and returns the one before (tests reach the several-chunk path). */
export function setConv2dDwChunkFloats(floats: number): number {
  const before = chunkFloats;
  chunkFloats = floats;
  return before;
}

export const conv2dDwWasm: Conv2dDwKernel = ({ x, w, dy }, { stride, padding, dilation, groups }, out) => {
  const width = widthOf(out.dtype)!;
  const bytes = width === 'f32' ? 4 : 8;
  const array = WIDTH_ARRAY[width];
  const g = window2d('conv2d_dw', x.shape, w.shape.slice(2), stride, padding, dilation);
  const [n, c, h, wd] = x.shape as [number, number, number, number];
  const o = w.shape[0]!;
  const cg = c / groups;
  const og = o / groups;
  const k = cg * g.kh * g.kw;
  const p = g.oh * g.ow;
  const plane = h * wd;
  const size = o * k;
  const mod = wasm();
  const arena = callArena();
  const px = inPtr(arena, width, x);
  const pdy = inPtr(arena, width, dy);
  // Images per product: im2col of a chunk is k rows of chunk·p positions.
  const chunk = width === 'f32' ? Math.max(1, Math.min(n, Math.floor(chunkFloats / Math.max(1, k * p)))) : 1;
  const q = chunk * p;
  const col = allocFor(arena, width, k * q);
  const one = width === 'f32' && chunk > 1 ? allocFor(arena, width, k * p) : 0;
  const dyc = width === 'f32' && (chunk > 1 || groups > 1) ? allocFor(arena, width, og * q) : 0;
  const part = allocFor(arena, width, og * k);
  const scratch = width === 'f32' ? arena.alloc(mod.matmul_scratch_bytes()) : 0;
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const acc = arena.view(array, y.ptr, size);
  acc.fill(0);
  const parts = arena.view(array, part, og * k);
  const dys = arena.view(array, pdy, n * o * p);
  const cols = arena.view(array, col, k * q);
  const ones = one ? arena.view(array, one, k * p) : null;
  const dycs = dyc ? arena.view(array, dyc, og * q) : null;
  for (let gi = 0; gi < groups; gi++) {
    const accAt = gi * og * k;
    for (let b0 = 0; b0 < n; b0 += chunk) {
      const m = Math.min(chunk, n - b0);
      const len = m * p;
      for (let b = b0; b < b0 + m; b++) {
        const xg = px + (b * c + gi * cg) * plane * bytes;
        const at = (b - b0) * p;
        if (width === 'f64') {
          mod.im2col_f64(xg, col, cg, h, wd, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padLeft, g.oh, g.ow);
          mod.matmul_f64(pdy + (b * o + gi * og) * p * 8, p, 1, col, 1, p, part, og, k, p);
          for (let i = 0; i < og * k; i++) acc[accAt + i] += parts[i]!;
          continue;
        }
        // im2col of image b, its rows placed at column `at` of the chunk's k × len matrix.
        const target = ones ? one : col;
        mod.im2col_f32(xg, target, p, cg, h, wd, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padLeft, g.oh, g.ow);
        if (ones) for (let r = 0; r < k; r++) cols.set(ones.subarray(r * p, (r + 1) * p), r * len + at);
        if (dycs) {
          const from = (b * o + gi * og) * p;
          for (let r = 0; r < og; r++) dycs.set(dys.subarray(from + r * p, from + (r + 1) * p), r * len + at);
        }
      }
      if (width === 'f64') continue;
      // dw_g[og × k] (+)= dy_c[og × len] · col[k × len]ᵀ, col read transposed through strides.
      const a = dycs ? dyc : pdy + b0 * o * p * 4;
      const first = b0 === 0;
      mod.matmul_f32(a, len, 1, col, 1, len, first ? y.ptr + accAt * 4 : part, og, k, len, scratch);
      if (!first) for (let i = 0; i < og * k; i++) acc[accAt + i] += parts[i]!;
    }
  }
  return y.tensor();
};
