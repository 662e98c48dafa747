// Convolution for the wasm dialect (AssemblyScript): the blocked matrix product over im2col panels packed straight from an NCHW image.

import { madd } from './madd';
import { blockedProduct, NR } from './matmul';
import { fewDots, storeLanes, transposeCols } from './dots';
import { share } from './parts';

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

// Zero-padded copies of a depthwise convolution's input (conv2d_dw_f32), DW_FLOATS per thread.
const DW_FLOATS = 4096;
const DW_ALL = memory.data(DW_FLOATS * 4 * MAX_THREADS, 16);
let DW_BUF: usize = DW_ALL;

// Byte offset of each im2col row of the depth block being packed from its position's top-left pixel (ci·plane +
// ky·dilH·rows + kx·dilW), TAP_ROWS per thread: a block has at most KC (matmul.ts) rows.
const TAP_ROWS = 256;
const TAPS_ALL = memory.data(TAP_ROWS * 4 * MAX_THREADS, 16);
let TAP_OFF: usize = TAPS_ALL;

/** Points this instance's panel tables and depthwise rows at thread t's slice (t < 16; the main thread keeps t = 0). */
export function conv_thread(t: i32): void {
  PANEL_Y = PANELS + <usize>t * 8 * 4 * 2;
  PANEL_X = PANEL_Y + 8 * 4;
  DW_BUF = DW_ALL + <usize>t * DW_FLOATS * 4;
  TAP_OFF = TAPS_ALL + <usize>t * TAP_ROWS * 4;
}

/**
 * c planes of h×w into planes of hp×wp with pt zero rows above, pl zero columns left and zeros after: a padded
 * convolution then runs unpadded on the copy, so every panel packs with vector loads (packImagePanels' fast path).
 */
export function pad_planes_f32(x: usize, dst: usize, c: i32, h: i32, w: i32, pt: i32, pl: i32, hp: i32, wp: i32): void {
  memory.fill(dst, 0, <usize>c * <usize>hp * <usize>wp * 4);
  for (let ci = 0; ci < c; ci++) {
    const src = x + <usize>ci * <usize>h * <usize>w * 4;
    const out = dst + (<usize>ci * <usize>hp * <usize>wp + <usize>pt * <usize>wp + <usize>pl) * 4;
    for (let y = 0; y < h; y++)
      memory.copy(out + <usize>y * <usize>wp * 4, src + <usize>y * <usize>w * 4, <usize>w * 4);
  }
}

/**
 * Where the four output positions from q read their top-left pixel, when they lie on one output row and every pixel
 * the taps' vector loads touch is inside the image (column stride 1: four neighbouring pixels, one vector per tap;
 * stride 2: eight, two vectors whose even lanes are the four); else 0.
 */
function quadOrigin(x: usize, q: i32, spanY: i32, spanX: i32): usize {
  const ox = q % outW;
  if (ox + 4 > outW) return 0;
  const iy = (q / outW) * strH - padT;
  const ix = ox * strW - padL;
  if (iy < 0 || iy + spanY >= imgH || ix < 0 || ix + 4 * strW - 1 + spanX >= imgW) return 0;
  return x + (<usize>iy * <usize>imgW + <usize>ix) * 4;
}
// A row so far outside the image that no tap brings it back: panel columns past the last output read zeros.
const NOWHERE: i32 = -0x20000000;

/**
 * y[o, oh·ow] = w[o, K] · im2col(x)[K, oh·ow] for one image and group: x holds cg channels of h×wd, w has K = cg·kh·kw
 * taps per output channel, row (ci·kh + ky)·kw + kx of im2col(x) is that tap over every output position. Only output
 * positions j0 ≤ j < j1 are written (0 and oh·ow: all): threads that split the positions each pack only their own
 * im2col panels, and every element is summed alike whatever the range.
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
  j0: i32,
  j1: i32,
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
  blockedProduct(w, k, 1, x, 0, 0, true, y, o, oh * ow, k, scratch, j0, j1);
}

/** Rows pc.. and columns jc.. of im2col(x) into NR-wide panels, as packPanelsB lays out a matrix; padding reads 0. */
export function packImagePanels(x: usize, pc: i32, jc: i32, kc: i32, nc: i32, dst: usize): void {
  const taps = kerH * kerW;
  const plane = <usize>imgH * <usize>imgW * 4;
  // Rows pc.. as byte offsets from a position's top-left pixel, for panels whose taps all land inside the image.
  const quads = (strW == 1 || strW == 2) && kc <= TAP_ROWS;
  if (quads) {
    let ci = pc / taps;
    let ky = (pc % taps) / kerW;
    let kx = (pc % taps) % kerW;
    for (let p = 0; p < kc; p++) {
      store<i32>(TAP_OFF + <usize>p * 4, ci * <i32>plane + (ky * dilH * imgW + kx * dilW) * 4);
      if (++kx == kerW) {
        kx = 0;
        if (++ky == kerH) {
          ky = 0;
          ci++;
        }
      }
    }
  }
  const spanY = (kerH - 1) * dilH;
  const spanX = (kerW - 1) * dilW;
  for (let j0 = 0; j0 < nc; j0 += NR) {
    const width = min(NR, nc - j0);
    const q0 = jc + j0;
    // Both halves of the panel four pixels per tap at column stride 1 or 2, inside the image (an unpadded or
    // padded-copy convolution, away from its right edge): two or four vector loads per row, whether or not the halves
    // share an output row.
    if (quads && width == NR) {
      const a = quadOrigin(x, q0, spanY, spanX);
      const b = a ? quadOrigin(x, q0 + 4, spanY, spanX) : 0;
      let out = dst + <usize>j0 * <usize>kc * 4;
      if (b && strW == 1) {
        for (let p = 0; p < kc; p++) {
          const off = <usize>load<i32>(TAP_OFF + <usize>p * 4);
          v128.store(out, v128.load(a + off));
          v128.store(out, v128.load(b + off), 16);
          out += NR * 4;
        }
        continue;
      }
      if (b) {
        for (let p = 0; p < kc; p++) {
          const off = <usize>load<i32>(TAP_OFF + <usize>p * 4);
          v128.store(out, v128.shuffle<f32>(v128.load(a + off), v128.load(a + off, 16), 0, 2, 4, 6));
          v128.store(out, v128.shuffle<f32>(v128.load(b + off), v128.load(b + off, 16), 0, 2, 4, 6), 16);
          out += NR * 4;
        }
        continue;
      }
    }
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
 * conv_few_f32's output channels split `parts` ways for threads: this call's `part` takes an equal share of the whole
 * groups of four (the last part also the one to three channels past them) and its own ld·k floats of `scratch`, so
 * every channel goes through the same kernels in the same order as in one call, with the same result bits.
 */
export function conv_few_part_f32(
  w: usize,
  col: usize,
  ld: i32,
  y: usize,
  o: i32,
  k: i32,
  p: i32,
  scratch: usize,
  part: i32,
  parts: i32,
): void {
  const r0 = quadShare(o, part, parts);
  const r1 = quadShare(o, part + 1, parts);
  if (r1 <= r0) return;
  const rows = scratch + <usize>part * <usize>k * <usize>ld * 4;
  conv_few_f32(w + <usize>r0 * <usize>k * 4, col, ld, y + <usize>r0 * <usize>p * 4, r1 - r0, k, p, rows);
}

/** Where `part` of `parts` starts among o output channels split in whole groups of four (parts: o). */
function quadShare(o: i32, part: i32, parts: i32): i32 {
  return part == parts ? o : share(o >> 2, part, parts) * 4;
}

/**
 * A convolution whose every output position reads k consecutive floats of x, position j's from x + j·step bytes: one
 * input channel, one row, no padding (the framing of an audio front end's STFT, a 1×512 kernel at stride 160). y[o, p]
 * = w[o, k] · those rows, by conv_few_f32's dot products straight from x, with no im2col and no transposition.
 */
export function conv_frames_f32(w: usize, x: usize, step: i32, y: usize, o: i32, k: i32, p: i32): void {
  fewDots(w, <usize>k * 4, o, x, <usize>step, p, k, y, <usize>p * 4, 4);
}

/** conv_frames_f32's output channels split `parts` ways, as conv_few_part_f32 splits them. */
export function conv_frames_part_f32(
  w: usize,
  x: usize,
  step: i32,
  y: usize,
  o: i32,
  k: i32,
  p: i32,
  part: i32,
  parts: i32,
): void {
  const r0 = quadShare(o, part, parts);
  const r1 = quadShare(o, part + 1, parts);
  if (r1 <= r0) return;
  conv_frames_f32(w + <usize>r0 * <usize>k * 4, x, step, y + <usize>r0 * <usize>p * 4, r1 - r0, k, p);
}

/**
 * y[o, P] = w[o, K] · col[K, P] for a few output positions (a late stage of a CNN, where P = oh·ow ≤ 36, or more for
 * a pointwise convolution): nothing is packed, since packing splats every weight across a vector for the blocked
 * product, and with P this small that costs more than the product itself. col's rows are `ld` floats apart (P rounded
 * up to 4, zero past P; ld = 1 for one position); y's rows are P apart. col is transposed into `scratch` (ld rows of k
 * floats), and each output channel's row of w is then dotted with those rows along K (fewDots): every load is a
 * whole vector, where the positions on the lanes took a splat of one weight for every eight products (480 → 480
 * channels over 24 positions: 24.9 → 28.3 GMAC/s; 257 → 257 over 512 taps and 8 positions: 24.9 → 28.8; the
 * transposition is a few percent of that). One or two positions take the rows' place, against four output channels.
 */
export function conv_few_f32(w: usize, col: usize, ld: i32, y: usize, o: i32, k: i32, p: i32, scratch: usize): void {
  const kBytes = <usize>k * 4;
  const yStep = <usize>p * 4;
  // One position: col already is its row of k floats.
  let x = col;
  if (ld > 1) {
    transposeCols(col, <usize>ld * 4, k, p, scratch, kBytes);
    x = scratch;
  }
  // One or two positions against four output channels at a time, else two channels against four positions.
  if (p <= 2 && o >= 4) fewDots(x, kBytes, p, w, kBytes, o, k, y, 4, yStep);
  else fewDots(w, kBytes, o, x, kBytes, p, k, y, yStep, 4);
}

/**
 * im2col(x) for conv_few_f32: K = c·kh·kw rows of oh·ow positions, each row `ld` floats long (zero past oh·ow), 0 in
 * the padding.
 */
export function im2col_f32(
  x: usize,
  col: usize,
  ld: i32,
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
  const rowBytes = <usize>ld * 4;
  const used = <usize>oh * <usize>ow;
  let row = col;
  for (let ci = 0; ci < c; ci++) {
    const plane = x + <usize>ci * <usize>h * <usize>w * 4;
    for (let ky = 0; ky < kh; ky++) {
      for (let kx = 0; kx < kw; kx++) {
        let out = row;
        for (let oy = 0; oy < oh; oy++) {
          const iy = oy * sh - pt + ky * dh;
          for (let ox = 0; ox < ow; ox++) {
            const ix = ox * sw - pl + kx * dw;
            store<f32>(
              out,
              <u32>iy < <u32>h && <u32>ix < <u32>w ? load<f32>(plane + (<usize>iy * <usize>w + <usize>ix) * 4) : 0,
            );
            out += 4;
          }
        }
        if (<usize>ld > used) memory.fill(out, 0, (<usize>ld - used) * 4);
        row += rowBytes;
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
 * y[oy, ox] = Σ w[ky, kx]·x[oy·sh − pt + ky·dh, ox·sw − pl + kx·dw] over in-bounds taps.
 *
 * The taps read zero-padded copies of the image (DW_BUF), so every tap of four neighbouring outputs is one f32x4 load
 * with no bounds test, even on images narrower than the kernel's reach (a 5×5 kernel over 4 columns). A small image is
 * padded whole, once per channel, into a buffer whose border is zeroed once per call; a large one a row band at a
 * time (the kh rows one output row reads). Column strides 1 and 2 vectorize (stride 2 takes the even lanes of two
 * loads); other strides, and rows too wide for the buffer, take the scalar loop.
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
  // Padded row length: the last vector of outputs (ow rounded up to 4) reads up to 8 floats from its last tap.
  const ow4 = (ow + 3) & ~3;
  const len = ((ow4 - 4) * sw + (kw - 1) * dw + 8 + 3) & ~3;
  if ((sw != 1 && sw != 2) || <i64>len * kh > DW_FLOATS) {
    // One output at a time with bounds tests: any stride, any width.
    for (let ch = 0; ch < c; ch++) {
      const xp = x + <usize>ch * <usize>h * <usize>wd * 4;
      const wp = w + <usize>ch * <usize>kh * <usize>kw * 4;
      const yp = y + <usize>ch * <usize>oh * <usize>ow * 4;
      for (let oy = 0; oy < oh; oy++) {
        const iy0 = oy * sh - pt;
        const yrow = yp + <usize>oy * <usize>ow * 4;
        for (let ox = 0; ox < ow; ox++) {
          const ix0 = ox * sw - pl;
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
        }
      }
    }
    return;
  }
  const rowBytes = <usize>len * 4;
  // Input columns that land in a padded row: [pl, pl + copied) holds x's columns [0, copied).
  const copied = max(0, min(wd, len - pl));
  // Padded rows read by the whole output: [0, rows) holds x's rows [−pt, rows − pt).
  const rows = (oh - 1) * sh + (kh - 1) * dh + 1;
  if (<i64>rows * len <= DW_FLOATS) {
    // Column stride 1 takes blocks of six vectors (depthwiseSix): six output rows by four columns on an image at most
    // four outputs wide, else three rows by eight columns, the last one or two rows then a row at a time. Stride 2,
    // and three to five rows of four columns, take four rows by four columns (depthwiseQuad), the last four
    // overlapping the ones before; its two loads a vector at stride 2 would not leave six sums their registers. For
    // fewer rows than a block, the block still reads the padded rows of a whole one (and stores only the rows there
    // are). One or two rows take depthwiseRow, which skips the taps on padding rows (most of a block's would be
    // wasted).
    const block = sw == 1 && ow > 4 ? 3 : sw == 1 && oh >= 6 ? 6 : 4;
    const blockRows = max(rows, (block - 1) * sh + (kh - 1) * dh + 1);
    const blocks = oh >= 3 && <i64>blockRows * len <= DW_FLOATS;
    memory.fill(DW_BUF, 0, <usize>(blocks ? blockRows : rows) * rowBytes);
    const first = max(0, pt);
    const last = min(rows, pt + h);
    // Rows the blocks of three cover; the rest go a row at a time.
    const wholeRows = block == 3 ? oh - (oh % 3) : oh;
    for (let ch = 0; ch < c; ch++) {
      const xp = x + <usize>ch * <usize>h * <usize>wd * 4;
      for (let r = first; r < last; r++)
        copyFloats(DW_BUF + <usize>r * rowBytes + <usize>pl * 4, xp + <usize>(r - pt) * <usize>wd * 4, copied);
      const wp = w + <usize>ch * <usize>kh * <usize>kw * 4;
      const yp = y + <usize>ch * <usize>oh * <usize>ow * 4;
      let oy = 0;
      if (blocks) {
        // A block of rows at a time. Blocks of four or six overlap the one before at the end when oh is not a
        // multiple of their rows (the rows both compute are written twice, with the same values).
        const outStep = <usize>sh * rowBytes;
        const yStep = <usize>ow * 4;
        for (; oy < wholeRows; oy += block) {
          const o = max(0, min(oy, oh - block));
          const band = DW_BUF + <usize>o * outStep;
          const yo = yp + <usize>o * yStep;
          const n = min(block, oh);
          if (block != 4)
            depthwiseSix(band, outStep, <usize>dh * rowBytes, wp, kh, kw, dw, yo, yStep, ow, n, block == 6);
          else depthwiseQuad(band, outStep, <usize>dh * rowBytes, wp, kh, kw, sw, dw, yo, yStep, ow, n);
        }
      }
      for (; oy < oh; oy++) {
        // Rows of the padding are zero: only the taps on the image's rows are summed.
        const iy0 = oy * sh - pt;
        const ky0 = firstTapIn(iy0, dh, kh);
        const ky1 = tapsEndIn(iy0, dh, ky0, kh, h);
        const band = DW_BUF + <usize>(oy * sh) * rowBytes;
        depthwiseRow(band, <usize>dh * rowBytes, ky0, ky1, wp, kw, sw, dw, yp + <usize>oy * <usize>ow * 4, ow);
      }
    }
    return;
  }
  for (let ch = 0; ch < c; ch++) {
    const xp = x + <usize>ch * <usize>h * <usize>wd * 4;
    const wp = w + <usize>ch * <usize>kh * <usize>kw * 4;
    const yp = y + <usize>ch * <usize>oh * <usize>ow * 4;
    for (let oy = 0; oy < oh; oy++) {
      const iy0 = oy * sh - pt;
      // Taps whose input row lies outside the image add nothing: only the rows in range are copied and summed.
      const ky0 = firstTapIn(iy0, dh, kh);
      const ky1 = tapsEndIn(iy0, dh, ky0, kh, h);
      for (let ky = ky0; ky < ky1; ky++) {
        const dst = DW_BUF + <usize>ky * rowBytes;
        if (pl > 0) memory.fill(dst, 0, <usize>pl * 4);
        copyFloats(dst + <usize>pl * 4, xp + <usize>(iy0 + ky * dh) * <usize>wd * 4, copied);
        const end = pl + copied;
        if (end < len) memory.fill(dst + <usize>end * 4, 0, <usize>(len - end) * 4);
      }
      depthwiseRow(DW_BUF, rowBytes, ky0, ky1, wp, kw, sw, dw, yp + <usize>oy * <usize>ow * 4, ow);
    }
  }
}

/**
 * Six vectors of depthwise outputs at a time at column stride 1, from the whole zero-padded image (band, outStep and
 * tapStep as depthwiseQuad's): `tall`, six output rows by four columns (an image at most four outputs wide), else three
 * rows by eight columns and, past the last eight, three rows by four. Output rows past `rows` are summed but not
 * stored. Six independent chains of adds: four (depthwiseQuad) wait on the adds' latency, and eight need more than the
 * sixteen vector registers V8 allocates once their loads are hoisted, so one sum goes through the stack.
 */
function depthwiseSix(
  band: usize,
  outStep: usize,
  tapStep: usize,
  wp: usize,
  kh: i32,
  kw: i32,
  dw: i32,
  y: usize,
  yStep: usize,
  ow: i32,
  rows: i32,
  tall: bool,
): void {
  const colStep = <usize>dw * 4;
  const o1 = outStep;
  const o2 = 2 * outStep;
  // Tall: rows 3–5 read from a second pointer three rows down. Wide: columns 4–7 are constant offsets of the loads.
  const down = tall ? 3 * outStep : 0;
  const width = tall ? 4 : 8;
  let ox = 0;
  for (; ox < ow; ox += width) {
    // Past the last whole eight, three rows of the last four columns (the padded rows end there).
    if (!tall && ox + 4 >= ow) break;
    let a0 = f32x4.splat(0);
    let a1 = a0;
    let a2 = a0;
    let a3 = a0;
    let a4 = a0;
    let a5 = a0;
    let row = band + <usize>ox * 4;
    let wk = wp;
    for (let ky = 0; ky < kh; ky++) {
      let at = row;
      const wEnd = wk + <usize>kw * 4;
      if (tall) {
        for (; wk < wEnd; wk += 4) {
          const s = v128.load32_splat(wk);
          const lo = at + down;
          a0 = madd(s, v128.load(at), a0);
          a1 = madd(s, v128.load(at + o1), a1);
          a2 = madd(s, v128.load(at + o2), a2);
          a3 = madd(s, v128.load(lo), a3);
          a4 = madd(s, v128.load(lo + o1), a4);
          a5 = madd(s, v128.load(lo + o2), a5);
          at += colStep;
        }
      } else {
        for (; wk < wEnd; wk += 4) {
          const s = v128.load32_splat(wk);
          a0 = madd(s, v128.load(at), a0);
          a3 = madd(s, v128.load(at, 16), a3);
          a1 = madd(s, v128.load(at + o1), a1);
          a4 = madd(s, v128.load(at + o1, 16), a4);
          a2 = madd(s, v128.load(at + o2), a2);
          a5 = madd(s, v128.load(at + o2, 16), a5);
          at += colStep;
        }
      }
      row += tapStep;
    }
    const out = y + <usize>ox * 4;
    const left = ow - ox;
    storeLanes(out, a0, left);
    if (rows > 1) storeLanes(out + yStep, a1, left);
    if (rows > 2) storeLanes(out + 2 * yStep, a2, left);
    if (tall) {
      if (rows > 3) storeLanes(out + 3 * yStep, a3, left);
      if (rows > 4) storeLanes(out + 4 * yStep, a4, left);
      if (rows > 5) storeLanes(out + 5 * yStep, a5, left);
    } else {
      storeLanes(out + 16, a3, left - 4);
      if (rows > 1) storeLanes(out + yStep + 16, a4, left - 4);
      if (rows > 2) storeLanes(out + 2 * yStep + 16, a5, left - 4);
    }
  }
  if (ox >= ow) return;
  let a0 = f32x4.splat(0);
  let a1 = a0;
  let a2 = a0;
  let row = band + <usize>ox * 4;
  let wk = wp;
  for (let ky = 0; ky < kh; ky++) {
    let at = row;
    const wEnd = wk + <usize>kw * 4;
    for (; wk < wEnd; wk += 4) {
      const s = v128.load32_splat(wk);
      a0 = madd(s, v128.load(at), a0);
      a1 = madd(s, v128.load(at + o1), a1);
      a2 = madd(s, v128.load(at + o2), a2);
      at += colStep;
    }
    row += tapStep;
  }
  const out = y + <usize>ox * 4;
  const left = ow - ox;
  storeLanes(out, a0, left);
  if (rows > 1) storeLanes(out + yStep, a1, left);
  if (rows > 2) storeLanes(out + 2 * yStep, a2, left);
}

/**
 * Four depthwise output rows of ow values at y (rows yStep bytes apart; the first `rows` of them stored) from the whole
 * zero-padded image: output row r reads the padded rows from band + r·outStep, tap row ky tapStep bytes further. Four
 * columns a vector, every tap of the kernel (the padding reads zeros), each weight splat shared by the four rows: four
 * independent chains of adds, where one row's taps (depthwiseRow) on a narrow image make short loops and wait on each
 * add.
 */
function depthwiseQuad(
  band: usize,
  outStep: usize,
  tapStep: usize,
  wp: usize,
  kh: i32,
  kw: i32,
  sw: i32,
  dw: i32,
  y: usize,
  yStep: usize,
  ow: i32,
  rows: i32,
): void {
  const colStep = <usize>dw * 4;
  for (let ox = 0; ox < ow; ox += 4) {
    let a0 = f32x4.splat(0);
    let a1 = a0;
    let a2 = a0;
    let a3 = a0;
    let row = band + <usize>(ox * sw) * 4;
    let wk = wp;
    for (let ky = 0; ky < kh; ky++) {
      let at = row;
      const wEnd = wk + <usize>kw * 4;
      if (sw == 1) {
        for (; wk < wEnd; wk += 4) {
          const s = v128.load32_splat(wk);
          a0 = madd(s, v128.load(at), a0);
          a1 = madd(s, v128.load(at + outStep), a1);
          a2 = madd(s, v128.load(at + 2 * outStep), a2);
          a3 = madd(s, v128.load(at + 3 * outStep), a3);
          at += colStep;
        }
      } else {
        for (; wk < wEnd; wk += 4) {
          const s = v128.load32_splat(wk);
          const r1 = at + outStep;
          const r2 = r1 + outStep;
          const r3 = r2 + outStep;
          a0 = madd(s, v128.shuffle<f32>(v128.load(at), v128.load(at, 16), 0, 2, 4, 6), a0);
          a1 = madd(s, v128.shuffle<f32>(v128.load(r1), v128.load(r1, 16), 0, 2, 4, 6), a1);
          a2 = madd(s, v128.shuffle<f32>(v128.load(r2), v128.load(r2, 16), 0, 2, 4, 6), a2);
          a3 = madd(s, v128.shuffle<f32>(v128.load(r3), v128.load(r3, 16), 0, 2, 4, 6), a3);
          at += colStep;
        }
      }
      row += tapStep;
    }
    const out = y + <usize>ox * 4;
    const left = ow - ox;
    storeLanes(out, a0, left);
    if (rows > 1) storeLanes(out + yStep, a1, left);
    if (rows > 2) storeLanes(out + 2 * yStep, a2, left);
    if (rows > 3) storeLanes(out + 3 * yStep, a3, left);
  }
}

/** The first kernel row ky whose input row iy0 + ky·dh is not above the image (kh when none is). */
function firstTapIn(iy0: i32, dh: i32, kh: i32): i32 {
  let ky = 0;
  while (ky < kh && iy0 + ky * dh < 0) ky++;
  return ky;
}

/** One past the last kernel row from ky0 whose input row iy0 + ky·dh is not below the image's h rows. */
function tapsEndIn(iy0: i32, dh: i32, ky0: i32, kh: i32, h: i32): i32 {
  let ky = kh;
  while (ky > ky0 && iy0 + (ky - 1) * dh >= h) ky--;
  return ky;
}

/** n floats from src to dst, four at a time (no bulk-memory call: the rows here are a few vectors long). */
function copyFloats(dst: usize, src: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(dst + <usize>i * 4, v128.load(src + <usize>i * 4));
  for (; i < n; i++) store<f32>(dst + <usize>i * 4, load<f32>(src + <usize>i * 4));
}

/**
 * One depthwise output row of ow values at y from padded rows `rows` + ky·step (ky in [ky0, ky1)), four outputs a
 * vector, on two chains of adds (even and odd taps). Column stride 2 takes the even lanes of two loads.
 */
function depthwiseRow(
  rows: usize,
  step: usize,
  ky0: i32,
  ky1: i32,
  wp: usize,
  kw: i32,
  sw: i32,
  dw: i32,
  y: usize,
  ow: i32,
): void {
  const tapStep = <usize>dw * 4;
  let ox = 0;
  // At column stride 1, twenty-four outputs a step: six vectors sharing each weight splat, six independent sums.
  if (sw == 1) {
    for (; ox + 24 <= ow; ox += 24) {
      let a0 = f32x4.splat(0);
      let a1 = a0;
      let a2 = a0;
      let a3 = a0;
      let a4 = a0;
      let a5 = a0;
      for (let ky = ky0; ky < ky1; ky++) {
        let at = rows + <usize>ky * step + <usize>ox * 4;
        let wk = wp + <usize>ky * <usize>kw * 4;
        const wEnd = wk + <usize>kw * 4;
        for (; wk < wEnd; wk += 4) {
          const s = v128.load32_splat(wk);
          a0 = madd(s, v128.load(at), a0);
          a1 = madd(s, v128.load(at, 16), a1);
          a2 = madd(s, v128.load(at, 32), a2);
          a3 = madd(s, v128.load(at, 48), a3);
          a4 = madd(s, v128.load(at, 64), a4);
          a5 = madd(s, v128.load(at, 80), a5);
          at += tapStep;
        }
      }
      const out = y + <usize>ox * 4;
      v128.store(out, a0);
      v128.store(out, a1, 16);
      v128.store(out, a2, 32);
      v128.store(out, a3, 48);
      v128.store(out, a4, 64);
      v128.store(out, a5, 80);
    }
  }
  // Eight outputs a step, two vectors sharing each weight splat: four independent sums (even and odd taps of each)
  // keep the adds' latency hidden, where one vector's chain of taps would wait on it.
  for (; ox + 8 <= ow; ox += 8) {
    let a0 = f32x4.splat(0);
    let a1 = f32x4.splat(0);
    let b0 = f32x4.splat(0);
    let b1 = f32x4.splat(0);
    for (let ky = ky0; ky < ky1; ky++) {
      let at = rows + <usize>ky * step + <usize>(ox * sw) * 4;
      let wk = wp + <usize>ky * <usize>kw * 4;
      const wEnd = wk + <usize>kw * 4;
      if (sw == 1) {
        for (; wk + 4 < wEnd; wk += 8) {
          const w0 = v128.load32_splat(wk);
          const w1 = v128.load32_splat(wk, 4);
          const at1 = at + tapStep;
          a0 = madd(w0, v128.load(at), a0);
          b0 = madd(w0, v128.load(at, 16), b0);
          a1 = madd(w1, v128.load(at1), a1);
          b1 = madd(w1, v128.load(at1, 16), b1);
          at += 2 * tapStep;
        }
        if (wk < wEnd) {
          const w0 = v128.load32_splat(wk);
          a0 = madd(w0, v128.load(at), a0);
          b0 = madd(w0, v128.load(at, 16), b0);
        }
      } else {
        for (; wk + 4 < wEnd; wk += 8) {
          const w0 = v128.load32_splat(wk);
          const w1 = v128.load32_splat(wk, 4);
          const at1 = at + tapStep;
          a0 = madd(w0, v128.shuffle<f32>(v128.load(at), v128.load(at, 16), 0, 2, 4, 6), a0);
          b0 = madd(w0, v128.shuffle<f32>(v128.load(at, 32), v128.load(at, 48), 0, 2, 4, 6), b0);
          a1 = madd(w1, v128.shuffle<f32>(v128.load(at1), v128.load(at1, 16), 0, 2, 4, 6), a1);
          b1 = madd(w1, v128.shuffle<f32>(v128.load(at1, 32), v128.load(at1, 48), 0, 2, 4, 6), b1);
          at += 2 * tapStep;
        }
        if (wk < wEnd) {
          const w0 = v128.load32_splat(wk);
          a0 = madd(w0, v128.shuffle<f32>(v128.load(at), v128.load(at, 16), 0, 2, 4, 6), a0);
          b0 = madd(w0, v128.shuffle<f32>(v128.load(at, 32), v128.load(at, 48), 0, 2, 4, 6), b0);
        }
      }
    }
    v128.store(y + <usize>ox * 4, f32x4.add(a0, a1));
    v128.store(y + <usize>ox * 4, f32x4.add(b0, b1), 16);
  }
  for (; ox < ow; ox += 4) {
    let acc = f32x4.splat(0);
    let odd = f32x4.splat(0);
    for (let ky = ky0; ky < ky1; ky++) {
      let at = rows + <usize>ky * step + <usize>(ox * sw) * 4;
      let wk = wp + <usize>ky * <usize>kw * 4;
      const wEnd = wk + <usize>kw * 4;
      if (sw == 1) {
        for (; wk + 4 < wEnd; wk += 8) {
          acc = madd(v128.load32_splat(wk), v128.load(at), acc);
          odd = madd(v128.load32_splat(wk, 4), v128.load(at + tapStep), odd);
          at += 2 * tapStep;
        }
        if (wk < wEnd) acc = madd(v128.load32_splat(wk), v128.load(at), acc);
      } else {
        for (; wk + 4 < wEnd; wk += 8) {
          const e0 = v128.shuffle<f32>(v128.load(at), v128.load(at, 16), 0, 2, 4, 6);
          const at1 = at + tapStep;
          const e1 = v128.shuffle<f32>(v128.load(at1), v128.load(at1, 16), 0, 2, 4, 6);
          acc = madd(v128.load32_splat(wk), e0, acc);
          odd = madd(v128.load32_splat(wk, 4), e1, odd);
          at += 2 * tapStep;
        }
        if (wk < wEnd) {
          const e0 = v128.shuffle<f32>(v128.load(at), v128.load(at, 16), 0, 2, 4, 6);
          acc = madd(v128.load32_splat(wk), e0, acc);
        }
      }
    }
    acc = f32x4.add(acc, odd);
    const out = y + <usize>ox * 4;
    if (ox + 4 <= ow) {
      v128.store(out, acc);
    } else {
      // The row's last 1–3 outputs: the lanes past ow belong to the next row (or past the output), not stored.
      store<f32>(out, f32x4.extract_lane(acc, 0));
      if (ox + 1 < ow) store<f32>(out, f32x4.extract_lane(acc, 1), 4);
      if (ox + 2 < ow) store<f32>(out, f32x4.extract_lane(acc, 2), 8);
    }
  }
}

/**
 * col2im_f32 for two taps a row at column stride 2 filling the output's width exactly (a 2×2 stride-2 upsampling, as
 * ppocr-det-v4's head): the rows of kx = 0 and kx = 1 land on the even and odd columns of the same output row, so four
 * columns of each interleave into eight outputs, with no overlap and no bounds test along the row.
 */
function col2imPairs(
  cols: usize,
  y: usize,
  rows: i32,
  h: i32,
  wd: i32,
  kh: i32,
  sh: i32,
  dh: i32,
  pt: i32,
  oh: i32,
): void {
  const ow = 2 * wd;
  const inPlane = <usize>h * <usize>wd * 4;
  const wd4 = wd & ~3;
  for (let r = 0; r < rows; r += 2) {
    const ky = (r >> 1) % kh;
    const plane = y + <usize>(r / (2 * kh)) * <usize>oh * <usize>ow * 4;
    const src0 = cols + <usize>r * inPlane;
    const src1 = src0 + inPlane;
    for (let iy = 0; iy < h; iy++) {
      const yy = iy * sh - pt + ky * dh;
      if (<u32>yy >= <u32>oh) continue;
      const out = plane + <usize>yy * <usize>ow * 4;
      const in0 = src0 + <usize>iy * <usize>wd * 4;
      const in1 = src1 + <usize>iy * <usize>wd * 4;
      let ix = 0;
      for (; ix < wd4; ix += 4) {
        const a = v128.load(in0 + <usize>ix * 4);
        const b = v128.load(in1 + <usize>ix * 4);
        const at = out + <usize>ix * 8;
        v128.store(at, f32x4.add(v128.load(at), v128.shuffle<f32>(a, b, 0, 4, 1, 5)));
        v128.store(at, f32x4.add(v128.load(at, 16), v128.shuffle<f32>(a, b, 2, 6, 3, 7)), 16);
      }
      for (; ix < wd; ix++) {
        const at = out + <usize>ix * 8;
        store<f32>(at, load<f32>(at) + load<f32>(in0 + <usize>ix * 4));
        store<f32>(at, load<f32>(at, 4) + load<f32>(in1 + <usize>ix * 4), 4);
      }
    }
  }
}

/**
 * col2im of a transposed convolution: row r = (oc·kh + ky)·kw + kx of cols (h·wd input positions each) adds onto the
 * output positions (iy·sh − pt + ky·dh, ix·sw − pl + kx·dw) of channel oc's oh×ow plane of y, where they land.
 */
export function col2im_f32(
  cols: usize,
  y: usize,
  rows: i32,
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
  const taps = kh * kw;
  if (kw == 2 && sw == 2 && dw == 1 && pl == 0 && ow == 2 * wd) {
    col2imPairs(cols, y, rows, h, wd, kh, sh, dh, pt, oh);
    return;
  }
  for (let r = 0; r < rows; r++) {
    const kx = r % kw;
    const ky = (r / kw) % kh;
    const plane = y + <usize>(r / taps) * <usize>oh * <usize>ow * 4;
    const src = cols + <usize>r * <usize>h * <usize>wd * 4;
    // The input columns whose output column lands inside the plane: x0 ≤ ix < x1.
    const shift = kx * dw - pl;
    const x0 = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
    const x1 = min(wd, (ow - 1 - shift) / sw + 1);
    if (ow - 1 - shift < 0 || x0 >= x1) continue;
    for (let iy = 0; iy < h; iy++) {
      const yy = iy * sh - pt + ky * dh;
      if (<u32>yy >= <u32>oh) continue;
      const rowOut = plane + <usize>yy * <usize>ow * 4;
      const rowIn = src + <usize>iy * <usize>wd * 4;
      for (let ix = x0; ix < x1; ix++) {
        const at = rowOut + <usize>(ix * sw + shift) * 4;
        store<f32>(at, load<f32>(at) + load<f32>(rowIn + <usize>ix * 4));
      }
    }
  }
}
