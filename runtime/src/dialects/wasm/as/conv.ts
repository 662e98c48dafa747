// Convolution for the wasm dialect (AssemblyScript): the blocked matrix product over im2col panels packed straight from an NCHW image.

import { blockedProduct, NR } from './matmul';

// The convolution conv2d_f32 is running. AssemblyScript has no closures and the blocked product asks for B panels by
// position only, so the geometry waits in module globals; calls never overlap (one thread, no re-entry).
let imgH = 0,
  imgW = 0,
  kerH = 0,
  kerW = 0,
  strH = 0,
  strW = 0,
  dilH = 0,
  dilW = 0,
  padT = 0,
  padL = 0,
  outW = 0;

// Top-left input pixel (row, column) read by each output position of the panel being packed. Sized by a literal, as
// memory.data needs a constant before matmul.ts (which imports this file back) has declared NR = 8.
// With threads (threads/), every instance shares one memory: conv_thread gives each thread its own pair of tables.
const MAX_THREADS = 16;
const PANELS = memory.data(8 * 4 * 2 * MAX_THREADS);
let PANEL_Y: usize = PANELS;
let PANEL_X: usize = PANELS + 8 * 4;

/** Points this instance's panel tables at thread t's slice (t < 16; the main thread keeps t = 0). */
export function conv_thread(t: i32): void {
  PANEL_Y = PANELS + <usize>t * 8 * 4 * 2;
  PANEL_X = PANEL_Y + 8 * 4;
}
// A row so far outside the image that no tap brings it back: panel columns past the last output read zeros.
const NOWHERE: i32 = -0x20000000;

/**
 * y[o, oh·ow] = w[o, K] · im2col(x)[K, oh·ow] for one image and group: x holds cg channels of h×wd, w has K = cg·kh·kw
 * taps per output channel, row (ci·kh + ky)·kw + kx of im2col(x) is that tap over every output position.
 */
export function conv2d_f32(
  x: usize,
  w: usize,
  y: usize,
  cg: i32,
  h: i32,
  wd: i32,
  kh: i32,
  kw: i32,
  sh: i32,
  sw: i32,
  dh: i32,
  dw: i32,
  pt: i32,
  pl: i32,
  oh: i32,
  ow: i32,
  o: i32,
  scratch: usize,
): void {
  imgH = h;
  imgW = wd;
  kerH = kh;
  kerW = kw;
  strH = sh;
  strW = sw;
  dilH = dh;
  dilW = dw;
  padT = pt;
  padL = pl;
  outW = ow;
  const k = cg * kh * kw;
  blockedProduct(w, k, 1, x, 0, 0, true, y, o, oh * ow, k, scratch);
}

/** Rows pc.. and columns jc.. of im2col(x) into NR-wide panels, as packPanelsB lays out a matrix; padding reads 0. */
export function packImagePanels(x: usize, pc: i32, jc: i32, kc: i32, nc: i32, dst: usize): void {
  const taps = kerH * kerW;
  const plane = <usize>imgH * <usize>imgW * 4;
  for (let j0 = 0; j0 < nc; j0 += NR) {
    const width = min(NR, nc - j0);
    const q0 = jc + j0;
    const oy0 = q0 / outW;
    const ox0 = q0 % outW;
    // NR outputs on one output row at unit stride read NR neighbouring pixels of one input row: two vector loads.
    const oneRow = width == NR && strW == 1 && ox0 + NR <= outW;
    for (let jj = 0; jj < NR; jj++) {
      const q = q0 + jj;
      store<i32>(PANEL_Y + <usize>jj * 4, jj < width ? (q / outW) * strH - padT : NOWHERE);
      store<i32>(PANEL_X + <usize>jj * 4, (q % outW) * strW - padL);
    }
    let out = dst + <usize>j0 * <usize>kc * 4;
    let ci = pc / taps;
    let ky = (pc % taps) / kerW;
    let kx = (pc % taps) % kerW;
    // Rows pc.. walk (ci, ky, kx) in order; each run of kx shares one input row, tested and addressed once.
    for (let p = 0; p < kc;) {
      const kxEnd = min(kerW, kx + (kc - p));
      const run = kxEnd - kx;
      const dy = ky * dilH;
      const iy0 = oy0 * strH - padT + dy;
      const src = x + <usize>ci * plane;
      if (oneRow && <u32>iy0 >= <u32>imgH) {
        memory.fill(out, 0, <usize>run * NR * 4);
        out += <usize>run * NR * 4;
      } else if (oneRow) {
        const row = src + <usize>iy0 * <usize>imgW * 4;
        for (let q = kx; q < kxEnd; q++) {
          const ix0 = ox0 - padL + q * dilW;
          if (ix0 >= 0 && ix0 + NR <= imgW) {
            const at = row + <usize>ix0 * 4;
            v128.store(out, v128.load(at));
            v128.store(out, v128.load(at, 16), 16);
          } else {
            for (let jj = 0; jj < NR; jj++) {
              const ix = ix0 + jj;
              store<f32>(out + <usize>jj * 4, <u32>ix < <u32>imgW ? load<f32>(row + <usize>ix * 4) : 0);
            }
          }
          out += NR * 4;
        }
      } else {
        for (let q = kx; q < kxEnd; q++) {
          const dx = q * dilW;
          for (let jj = 0; jj < NR; jj++) {
            const iy = load<i32>(PANEL_Y + <usize>jj * 4) + dy;
            const ix = load<i32>(PANEL_X + <usize>jj * 4) + dx;
            // Unsigned compares fold the < 0 tests in.
            const v: f32 =
              <u32>iy < <u32>imgH && <u32>ix < <u32>imgW
                ? load<f32>(src + (<usize>iy * <usize>imgW + <usize>ix) * 4)
                : 0;
            store<f32>(out + <usize>jj * 4, v);
          }
          out += NR * 4;
        }
      }
      p += run;
      kx = 0;
      if (++ky == kerH) {
        ky = 0;
        ci++;
      }
    }
  }
}

/**
 * The float64 path writes im2col(x) out for matmul_f64 (tests and gradchecks; speed is the f32 path's job): col has
 * the layout above, oh·ow columns per tap row, 0 in the padding.
 */
export function im2col_f64(
  x: usize,
  col: usize,
  c: i32,
  h: i32,
  w: i32,
  kh: i32,
  kw: i32,
  sh: i32,
  sw: i32,
  dh: i32,
  dw: i32,
  pt: i32,
  pl: i32,
  oh: i32,
  ow: i32,
): void {
  let out = col;
  for (let ci = 0; ci < c; ci++) {
    const plane = x + <usize>ci * <usize>h * <usize>w * 8;
    for (let ky = 0; ky < kh; ky++) {
      for (let kx = 0; kx < kw; kx++) {
        for (let oy = 0; oy < oh; oy++) {
          const iy = oy * sh - pt + ky * dh;
          for (let ox = 0; ox < ow; ox++) {
            const ix = ox * sw - pl + kx * dw;
            store<f64>(
              out,
              <u32>iy < <u32>h && <u32>ix < <u32>w ? load<f64>(plane + (<usize>iy * <usize>w + <usize>ix) * 8) : 0,
            );
            out += 8;
          }
        }
      }
    }
  }
}

/**
 * A depthwise convolution (one input and one output channel per group) read straight from the image: per channel,
 * y[oy, ox] = Σ w[ky, kx]·x[oy·sh − pt + ky·dh, ox·sw − pl + kx·dw] over in-bounds taps. With unit column stride and
 * dilation, four outputs of a row whose taps are all inside the row take one f32x4 per tap; the rest go one by one.
 */
export function conv2d_dw_f32(
  x: usize,
  w: usize,
  y: usize,
  c: i32,
  h: i32,
  wd: i32,
  kh: i32,
  kw: i32,
  sh: i32,
  sw: i32,
  dh: i32,
  dw: i32,
  pt: i32,
  pl: i32,
  oh: i32,
  ow: i32,
): void {
  const vectorRow = sw == 1 && dw == 1;
  for (let ch = 0; ch < c; ch++) {
    const xp = x + <usize>ch * <usize>h * <usize>wd * 4;
    const wp = w + <usize>ch * <usize>kh * <usize>kw * 4;
    const yp = y + <usize>ch * <usize>oh * <usize>ow * 4;
    for (let oy = 0; oy < oh; oy++) {
      const iy0 = oy * sh - pt;
      const yrow = yp + <usize>oy * <usize>ow * 4;
      let ox = 0;
      while (ox < ow) {
        const ix0 = ox * sw - pl;
        if (vectorRow && ix0 >= 0 && ox + 4 <= ow && ix0 + 3 + kw - 1 < wd) {
          let acc = f32x4.splat(0);
          for (let ky = 0; ky < kh; ky++) {
            const iy = iy0 + ky * dh;
            if (<u32>iy >= <u32>h) continue;
            const row = xp + (<usize>iy * <usize>wd + <usize>ix0) * 4;
            const wrow = wp + <usize>ky * <usize>kw * 4;
            for (let kx = 0; kx < kw; kx++)
              acc = f32x4.add(acc, f32x4.mul(v128.load32_splat(wrow + <usize>kx * 4), v128.load(row + <usize>kx * 4)));
          }
          v128.store(yrow + <usize>ox * 4, acc);
          ox += 4;
          continue;
        }
        let s: f32 = 0;
        for (let ky = 0; ky < kh; ky++) {
          const iy = iy0 + ky * dh;
          if (<u32>iy >= <u32>h) continue;
          const row = xp + <usize>iy * <usize>wd * 4;
          const wrow = wp + <usize>ky * <usize>kw * 4;
          for (let kx = 0; kx < kw; kx++) {
            const ix = ix0 + kx * dw;
            if (<u32>ix < <u32>wd) s += load<f32>(wrow + <usize>kx * 4) * load<f32>(row + <usize>ix * 4);
          }
        }
        store<f32>(yrow + <usize>ox * 4, s);
        ox++;
      }
    }
  }
}
