// Winograd convolutions for the wasm dialect (AssemblyScript), at stride 1. F(2, 3): a kernel of 3 taps along one axis
// (1×3, 3×1, or kh×3 with the kernel rows as more input channels), two outputs along the axis from four inputs with 4
// products where the direct product takes 6: four matrix products of 2/3 the work of the im2col one, between a
// transform of the input and one of the output. F(2×2, 3×3), further down, applies the same along both axes.
// y = Aᵀ[(G g) ⊙ (Bᵀ d)] with, for taps g and inputs d (points 0, 1, −1, ∞):
//   Bᵀ d = (d0 − d2, d1 + d2, d2 − d1, d1 − d3),  G g = (g0, (g0 + g1 + g2) / 2, (g0 − g1 + g2) / 2, g2),
//   Aᵀ m = (m0 + m1 + m2, m1 − m2 − m3).

import { share } from './parts';

/**
 * The valid (unpadded) convolution of x (c planes of h×wd) with w, in three steps: wino3_in_f32 here, four matrix
 * products M_t[o, T] = U_t[o, K] · V_t[K, T] (t = 0..3, each matmul_f32, run from JavaScript so that threads can split
 * them), then wino3_out_f32. When `alongW`, w has kh×3 taps (o·c·kh·3): F(2, 3) along the width, the kh rows as more
 * input rows (row c·kh + ky of V reads the plane ky rows lower), K = c·kh; else 3×1 taps along the height, K = c. The
 * output along the 3 taps (wd − 2, or h − 2) must be even; T = output positions / 2 tiles. U_t starts at u + t·uFloats
 * floats, V_t at v + t·vFloats (and M_t, for wino3_out_f32, at m + t·mFloats). With `four`, F(4, 3) instead (below):
 * six U_t and V_t, the output along the taps a multiple of 4, T = output positions / 4, for wino43_out_f32. This call
 * transforms its `part` of `parts` equal shares of U's rows and of the input channels (threads run the parts side by
 * side; one thread passes 0 of 1).
 */
export function wino3_in_f32(
  x: usize,
  w: usize,
  c: i32,
  h: i32,
  wd: i32,
  kh: i32,
  o: i32,
  alongW: bool,
  u: usize,
  uFloats: i32,
  v: usize,
  vFloats: i32,
  four: bool,
  part: i32,
  parts: i32,
): void {
  const oh = alongW ? h - kh + 1 : h - 2;
  const ow = alongW ? wd - 2 : wd;
  const tiles = (oh * ow) >> (four ? 2 : 1);
  const k = alongW ? c * kh : c;
  const uStep = <usize>uFloats * 4;
  const vStep = <usize>vFloats * 4;
  // G g per output and input row (channel, or channel and kernel row): U_t[o, k].
  const half: f32 = 0.5;
  const uEnd = share(o * k, part + 1, parts);
  for (let i = share(o * k, part, parts); i < uEnd; i++) {
    const g = w + <usize>i * 12;
    const g0 = load<f32>(g);
    const g1 = load<f32>(g, 4);
    const g2 = load<f32>(g, 8);
    const at = u + <usize>i * 4;
    if (four) {
      for (let t = 0; t < 6; t++) store<f32>(at + <usize>t * uStep, gPoint(t, g0, g1, g2));
      continue;
    }
    store<f32>(at, g0);
    store<f32>(at + uStep, (g0 + g1 + g2) * half);
    store<f32>(at + 2 * uStep, (g0 - g1 + g2) * half);
    store<f32>(at + 3 * uStep, g2);
  }
  // Bᵀ d per input row and tile: V_t[k, tile].
  const cEnd = share(c, part + 1, parts);
  for (let ci = share(c, part, parts); ci < cEnd; ci++) {
    const plane = x + <usize>ci * <usize>h * <usize>wd * 4;
    if (!alongW) {
      const to = v + <usize>ci * <usize>tiles * 4;
      if (four) inputAlongH43(plane, to, vStep, h, wd);
      else inputAlongH(plane, to, vStep, h, wd);
    } else
      for (let ky = 0; ky < kh; ky++) {
        const row = v + <usize>(ci * kh + ky) * <usize>tiles * 4;
        if (four) inputAlongW43(plane + <usize>ky * <usize>wd * 4, row, vStep, oh, wd);
        else inputAlongW(plane + <usize>ky * <usize>wd * 4, row, vStep, oh, wd);
      }
  }
}

/**
 * Aᵀ m per output channel and tile into y (o planes of the output), after wino3_in_f32 and the four products; this
 * call's `part` of `parts` equal shares of the output channels.
 */
export function wino3_out_f32(
  y: usize,
  h: i32,
  wd: i32,
  kh: i32,
  o: i32,
  alongW: bool,
  m: usize,
  mFloats: i32,
  part: i32,
  parts: i32,
): void {
  const oh = alongW ? h - kh + 1 : h - 2;
  const ow = alongW ? wd - 2 : wd;
  const tiles = (oh * ow) >> 1;
  const mStep = <usize>mFloats * 4;
  const oEnd = share(o, part + 1, parts);
  for (let oi = share(o, part, parts); oi < oEnd; oi++) {
    const mo = m + <usize>oi * <usize>tiles * 4;
    const yo = y + <usize>oi * <usize>oh * <usize>ow * 4;
    if (alongW) outputAlongW(mo, mStep, yo, tiles);
    else outputAlongH(mo, mStep, yo, oh, ow);
  }
}

/**
 * Tiles along the width: tile r·(ow/2) + j reads x[r, 2j .. 2j + 3]. Four tiles a step: their d0 and d1 are the even
 * and odd lanes of x[r, 2j .. 2j + 7], d2 and d3 those of x[r, 2j + 2 .. 2j + 9].
 */
function inputAlongW(x: usize, v: usize, vStep: usize, h: i32, wd: i32): void {
  const per = (wd - 2) >> 1;
  for (let r = 0; r < h; r++) {
    const row = x + <usize>r * <usize>wd * 4;
    const out = v + <usize>r * <usize>per * 4;
    let j = 0;
    for (; j + 4 <= per; j += 4) {
      const at = row + <usize>j * 8;
      const a = v128.load(at);
      const b = v128.load(at, 16);
      const e = v128.load(at, 8);
      const f = v128.load(at, 24);
      const d0 = v128.shuffle<f32>(a, b, 0, 2, 4, 6);
      const d1 = v128.shuffle<f32>(a, b, 1, 3, 5, 7);
      const d2 = v128.shuffle<f32>(e, f, 0, 2, 4, 6);
      const d3 = v128.shuffle<f32>(e, f, 1, 3, 5, 7);
      const to = out + <usize>j * 4;
      v128.store(to, f32x4.sub(d0, d2));
      v128.store(to + vStep, f32x4.add(d1, d2));
      v128.store(to + 2 * vStep, f32x4.sub(d2, d1));
      v128.store(to + 3 * vStep, f32x4.sub(d1, d3));
    }
    for (; j < per; j++) {
      const at = row + <usize>j * 8;
      const d0 = load<f32>(at);
      const d1 = load<f32>(at, 4);
      const d2 = load<f32>(at, 8);
      const d3 = load<f32>(at, 12);
      const to = out + <usize>j * 4;
      store<f32>(to, d0 - d2);
      store<f32>(to + vStep, d1 + d2);
      store<f32>(to + 2 * vStep, d2 - d1);
      store<f32>(to + 3 * vStep, d1 - d3);
    }
  }
}

/** Tiles along the height: tile j·wd + q reads x[2j .. 2j + 3, q], four columns a vector. */
function inputAlongH(x: usize, v: usize, vStep: usize, h: i32, wd: i32): void {
  const per = (h - 2) >> 1;
  const rowBytes = <usize>wd * 4;
  const wd4 = wd & ~3;
  for (let j = 0; j < per; j++) {
    const r0 = x + <usize>(2 * j) * rowBytes;
    const out = v + <usize>j * rowBytes;
    let q = 0;
    for (; q < wd4; q += 4) {
      const at = r0 + <usize>q * 4;
      const d0 = v128.load(at);
      const d1 = v128.load(at + rowBytes);
      const d2 = v128.load(at + 2 * rowBytes);
      const d3 = v128.load(at + 3 * rowBytes);
      const to = out + <usize>q * 4;
      v128.store(to, f32x4.sub(d0, d2));
      v128.store(to + vStep, f32x4.add(d1, d2));
      v128.store(to + 2 * vStep, f32x4.sub(d2, d1));
      v128.store(to + 3 * vStep, f32x4.sub(d1, d3));
    }
    for (; q < wd; q++) {
      const at = r0 + <usize>q * 4;
      const d0 = load<f32>(at);
      const d1 = load<f32>(at + rowBytes);
      const d2 = load<f32>(at + 2 * rowBytes);
      const d3 = load<f32>(at + 3 * rowBytes);
      const to = out + <usize>q * 4;
      store<f32>(to, d0 - d2);
      store<f32>(to + vStep, d1 + d2);
      store<f32>(to + 2 * vStep, d2 - d1);
      store<f32>(to + 3 * vStep, d1 - d3);
    }
  }
}

/** Tile t of a row-major output along the width holds y[2t] and y[2t + 1]: four tiles make eight outputs. */
function outputAlongW(m: usize, mStep: usize, y: usize, tiles: i32): void {
  let t = 0;
  for (; t + 4 <= tiles; t += 4) {
    const at = m + <usize>t * 4;
    const m0 = v128.load(at);
    const m1 = v128.load(at + mStep);
    const m2 = v128.load(at + 2 * mStep);
    const m3 = v128.load(at + 3 * mStep);
    const e = f32x4.add(f32x4.add(m0, m1), m2);
    const f = f32x4.sub(f32x4.sub(m1, m2), m3);
    const to = y + <usize>t * 8;
    v128.store(to, v128.shuffle<f32>(e, f, 0, 4, 1, 5));
    v128.store(to, v128.shuffle<f32>(e, f, 2, 6, 3, 7), 16);
  }
  for (; t < tiles; t++) {
    const at = m + <usize>t * 4;
    const m0 = load<f32>(at);
    const m1 = load<f32>(at + mStep);
    const m2 = load<f32>(at + 2 * mStep);
    const m3 = load<f32>(at + 3 * mStep);
    store<f32>(y + <usize>t * 8, m0 + m1 + m2);
    store<f32>(y + <usize>t * 8, m1 - m2 - m3, 4);
  }
}

/** Tile j·ow + q of an output along the height holds y[2j, q] and y[2j + 1, q]. */
function outputAlongH(m: usize, mStep: usize, y: usize, oh: i32, ow: i32): void {
  const rowBytes = <usize>ow * 4;
  const ow4 = ow & ~3;
  for (let j = 0; j < oh >> 1; j++) {
    const from = m + <usize>j * rowBytes;
    const to = y + <usize>(2 * j) * rowBytes;
    let q = 0;
    for (; q < ow4; q += 4) {
      const at = from + <usize>q * 4;
      const m0 = v128.load(at);
      const m1 = v128.load(at + mStep);
      const m2 = v128.load(at + 2 * mStep);
      const m3 = v128.load(at + 3 * mStep);
      v128.store(to + <usize>q * 4, f32x4.add(f32x4.add(m0, m1), m2));
      v128.store(to + rowBytes + <usize>q * 4, f32x4.sub(f32x4.sub(m1, m2), m3));
    }
    for (; q < ow; q++) {
      const at = from + <usize>q * 4;
      const m0 = load<f32>(at);
      const m1 = load<f32>(at + mStep);
      const m2 = load<f32>(at + 2 * mStep);
      const m3 = load<f32>(at + 3 * mStep);
      store<f32>(to + <usize>q * 4, m0 + m1 + m2);
      store<f32>(to + rowBytes + <usize>q * 4, m1 - m2 - m3);
    }
  }
}

// Winograd F(2×2, 3×3) for a full 3×3 kernel (stride 1): 2×2 outputs from a 4×4 input tile with 16 products where the
// direct product takes 36, sixteen matrix products M_ab = U_ab · V_ab (a, b = 0..3) of 4/9 the im2col product's work
// (the 1-D transform above leaves 6/9). The same points and matrices along each axis: V = Bᵀ d B, U = G g Gᵀ,
// y = Aᵀ M A.

/**
 * The valid convolution of x (c planes of h×wd, both h − 2 and wd − 2 even: the caller pads an odd output by a zero row
 * or column) with w (o·c·3·3), first step: U_ab[o, c] for the 16 points ab = 4a + b at u + ab·uFloats floats, then
 * V_ab[c, T] at v + ab·vFloats for the T = (h − 2)/2 · (wd − 2)/2 tiles, row-major. The caller then makes the sixteen
 * products M_ab[o, T] = U_ab · V_ab for wino33_out_f32. This call transforms its `part` of `parts` equal shares of the
 * (o, c) kernels and of the input channels.
 */
export function wino33_in_f32(
  x: usize,
  w: usize,
  c: i32,
  h: i32,
  wd: i32,
  o: i32,
  u: usize,
  uFloats: i32,
  v: usize,
  vFloats: i32,
  part: i32,
  parts: i32,
): void {
  const th = (h - 2) >> 1;
  const tw = (wd - 2) >> 1;
  const tiles = th * tw;
  const uStep = <usize>uFloats * 4;
  const vStep = <usize>vFloats * 4;
  const half: f32 = 0.5;
  const uEnd = share(o * c, part + 1, parts);
  for (let i = share(o * c, part, parts); i < uEnd; i++) {
    const g = w + <usize>i * 36;
    // G g, column by column: rows g0, (g0 + g1 + g2) / 2, (g0 − g1 + g2) / 2, g2 of each kernel column.
    const g00 = load<f32>(g);
    const g01 = load<f32>(g, 4);
    const g02 = load<f32>(g, 8);
    const g10 = load<f32>(g, 12);
    const g11 = load<f32>(g, 16);
    const g12 = load<f32>(g, 20);
    const g20 = load<f32>(g, 24);
    const g21 = load<f32>(g, 28);
    const g22 = load<f32>(g, 32);
    const at = u + <usize>i * 4;
    kernelRow(at, uStep, g00, g01, g02);
    kernelRow(at + 4 * uStep, uStep, (g00 + g10 + g20) * half, (g01 + g11 + g21) * half, (g02 + g12 + g22) * half);
    kernelRow(at + 8 * uStep, uStep, (g00 - g10 + g20) * half, (g01 - g11 + g21) * half, (g02 - g12 + g22) * half);
    kernelRow(at + 12 * uStep, uStep, g20, g21, g22);
  }
  const cEnd = share(c, part + 1, parts);
  const rowBytes = <usize>wd * 4;
  for (let ci = share(c, part, parts); ci < cEnd; ci++) {
    const plane = x + <usize>ci * <usize>h * rowBytes;
    for (let ti = 0; ti < th; ti++) {
      const r0 = plane + <usize>(2 * ti) * rowBytes;
      const out = v + (<usize>ci * <usize>tiles + <usize>ti * <usize>tw) * 4;
      let j = 0;
      // Four tiles a step: per input row, the 1-D transform of wino3's inputAlongW (d0..d3 the even and odd lanes of
      // two overlapping vector pairs), then the same transform down the four rows.
      for (; j + 4 <= tw; j += 4) {
        const at = r0 + <usize>j * 8;
        let a = v128.load(at);
        let b = v128.load(at, 16);
        let e = v128.load(at, 8);
        let f = v128.load(at, 24);
        let d0 = v128.shuffle<f32>(a, b, 0, 2, 4, 6);
        let d1 = v128.shuffle<f32>(a, b, 1, 3, 5, 7);
        let d2 = v128.shuffle<f32>(e, f, 0, 2, 4, 6);
        let d3 = v128.shuffle<f32>(e, f, 1, 3, 5, 7);
        const p0 = f32x4.sub(d0, d2);
        const p1 = f32x4.add(d1, d2);
        const p2 = f32x4.sub(d2, d1);
        const p3 = f32x4.sub(d1, d3);
        a = v128.load(at + rowBytes);
        b = v128.load(at + rowBytes, 16);
        e = v128.load(at + rowBytes, 8);
        f = v128.load(at + rowBytes, 24);
        d0 = v128.shuffle<f32>(a, b, 0, 2, 4, 6);
        d1 = v128.shuffle<f32>(a, b, 1, 3, 5, 7);
        d2 = v128.shuffle<f32>(e, f, 0, 2, 4, 6);
        d3 = v128.shuffle<f32>(e, f, 1, 3, 5, 7);
        const q0 = f32x4.sub(d0, d2);
        const q1 = f32x4.add(d1, d2);
        const q2 = f32x4.sub(d2, d1);
        const q3 = f32x4.sub(d1, d3);
        a = v128.load(at + 2 * rowBytes);
        b = v128.load(at + 2 * rowBytes, 16);
        e = v128.load(at + 2 * rowBytes, 8);
        f = v128.load(at + 2 * rowBytes, 24);
        d0 = v128.shuffle<f32>(a, b, 0, 2, 4, 6);
        d1 = v128.shuffle<f32>(a, b, 1, 3, 5, 7);
        d2 = v128.shuffle<f32>(e, f, 0, 2, 4, 6);
        d3 = v128.shuffle<f32>(e, f, 1, 3, 5, 7);
        const s0 = f32x4.sub(d0, d2);
        const s1 = f32x4.add(d1, d2);
        const s2 = f32x4.sub(d2, d1);
        const s3 = f32x4.sub(d1, d3);
        const to = out + <usize>j * 4;
        // Rows 0 and 2 give V_0b = R0 − R2; rows 1 and 2 give V_1b = R1 + R2 and V_2b = R2 − R1.
        v128.store(to, f32x4.sub(p0, s0));
        v128.store(to + vStep, f32x4.sub(p1, s1));
        v128.store(to + 2 * vStep, f32x4.sub(p2, s2));
        v128.store(to + 3 * vStep, f32x4.sub(p3, s3));
        v128.store(to + 4 * vStep, f32x4.add(q0, s0));
        v128.store(to + 5 * vStep, f32x4.add(q1, s1));
        v128.store(to + 6 * vStep, f32x4.add(q2, s2));
        v128.store(to + 7 * vStep, f32x4.add(q3, s3));
        v128.store(to + 8 * vStep, f32x4.sub(s0, q0));
        v128.store(to + 9 * vStep, f32x4.sub(s1, q1));
        v128.store(to + 10 * vStep, f32x4.sub(s2, q2));
        v128.store(to + 11 * vStep, f32x4.sub(s3, q3));
        a = v128.load(at + 3 * rowBytes);
        b = v128.load(at + 3 * rowBytes, 16);
        e = v128.load(at + 3 * rowBytes, 8);
        f = v128.load(at + 3 * rowBytes, 24);
        d0 = v128.shuffle<f32>(a, b, 0, 2, 4, 6);
        d1 = v128.shuffle<f32>(a, b, 1, 3, 5, 7);
        d2 = v128.shuffle<f32>(e, f, 0, 2, 4, 6);
        d3 = v128.shuffle<f32>(e, f, 1, 3, 5, 7);
        // V_3b = R1 − R3.
        v128.store(to + 12 * vStep, f32x4.sub(q0, f32x4.sub(d0, d2)));
        v128.store(to + 13 * vStep, f32x4.sub(q1, f32x4.add(d1, d2)));
        v128.store(to + 14 * vStep, f32x4.sub(q2, f32x4.sub(d2, d1)));
        v128.store(to + 15 * vStep, f32x4.sub(q3, f32x4.sub(d1, d3)));
      }
      for (; j < tw; j++) inputTile33(r0 + <usize>j * 8, rowBytes, out + <usize>j * 4, vStep);
    }
  }
}

/** U_a0..U_a3 of one kernel from row a of G g (its three columns): the 1-D kernel transform along the row. */
function kernelRow(at: usize, uStep: usize, r0: f32, r1: f32, r2: f32): void {
  const half: f32 = 0.5;
  store<f32>(at, r0);
  store<f32>(at + uStep, (r0 + r1 + r2) * half);
  store<f32>(at + 2 * uStep, (r0 - r1 + r2) * half);
  store<f32>(at + 3 * uStep, r2);
}

/** V_ab of the one tile whose top-left input is at x (the tail of a row of tiles): the rows' transforms, then down. */
function inputTile33(x: usize, rowBytes: usize, to: usize, vStep: usize): void {
  for (let b = 0; b < 4; b++) {
    // Column b of D B for each of the four input rows.
    const r0 = rowPoint(x, b);
    const r1 = rowPoint(x + rowBytes, b);
    const r2 = rowPoint(x + 2 * rowBytes, b);
    const r3 = rowPoint(x + 3 * rowBytes, b);
    store<f32>(to + <usize>b * vStep, r0 - r2);
    store<f32>(to + <usize>(4 + b) * vStep, r1 + r2);
    store<f32>(to + <usize>(8 + b) * vStep, r2 - r1);
    store<f32>(to + <usize>(12 + b) * vStep, r1 - r3);
  }
}

/** Element b of Bᵀ d for the four inputs d0..d3 from x: d0 − d2, d1 + d2, d2 − d1, d1 − d3. */
function rowPoint(x: usize, b: i32): f32 {
  const d1 = load<f32>(x, 4);
  const d2 = load<f32>(x, 8);
  if (b === 0) return load<f32>(x) - d2;
  if (b === 1) return d1 + d2;
  if (b === 2) return d2 - d1;
  return d1 - load<f32>(x, 12);
}

/**
 * Aᵀ M A per output channel and tile into y (o planes of oh×ow; an odd oh or ow drops the last tile row's or column's
 * second output), after wino33_in_f32 and the sixteen products (M_ab at m + ab·mFloats floats); this call's `part`
 * of `parts` equal shares of the output channels.
 */
export function wino33_out_f32(
  y: usize,
  oh: i32,
  ow: i32,
  o: i32,
  m: usize,
  mFloats: i32,
  part: i32,
  parts: i32,
): void {
  const th = (oh + 1) >> 1;
  const tw = (ow + 1) >> 1;
  const tiles = th * tw;
  const mStep = <usize>mFloats * 4;
  const rowBytes = <usize>ow * 4;
  const oEnd = share(o, part + 1, parts);
  for (let oi = share(o, part, parts); oi < oEnd; oi++) {
    const mo = m + <usize>oi * <usize>tiles * 4;
    const yo = y + <usize>oi * <usize>oh * rowBytes;
    for (let ti = 0; ti < th; ti++) {
      const from = mo + <usize>ti * <usize>tw * 4;
      const y0 = yo + <usize>(2 * ti) * rowBytes;
      const second = 2 * ti + 1 < oh;
      let j = 0;
      // Four tiles a step, while their eight columns are all inside the row.
      for (; j + 4 <= tw && 2 * j + 8 <= ow; j += 4) {
        const at = from + <usize>j * 4;
        // Aᵀ M: per column b, s_b = M_0b + M_1b + M_2b (output row 0) and e_b = M_1b − M_2b − M_3b (row 1).
        let m0 = v128.load(at);
        let m1 = v128.load(at + 4 * mStep);
        let m2 = v128.load(at + 8 * mStep);
        let m3 = v128.load(at + 12 * mStep);
        const s0 = f32x4.add(f32x4.add(m0, m1), m2);
        const e0 = f32x4.sub(f32x4.sub(m1, m2), m3);
        m0 = v128.load(at + mStep);
        m1 = v128.load(at + 5 * mStep);
        m2 = v128.load(at + 9 * mStep);
        m3 = v128.load(at + 13 * mStep);
        const s1 = f32x4.add(f32x4.add(m0, m1), m2);
        const e1 = f32x4.sub(f32x4.sub(m1, m2), m3);
        m0 = v128.load(at + 2 * mStep);
        m1 = v128.load(at + 6 * mStep);
        m2 = v128.load(at + 10 * mStep);
        m3 = v128.load(at + 14 * mStep);
        const s2 = f32x4.add(f32x4.add(m0, m1), m2);
        const e2 = f32x4.sub(f32x4.sub(m1, m2), m3);
        m0 = v128.load(at + 3 * mStep);
        m1 = v128.load(at + 7 * mStep);
        m2 = v128.load(at + 11 * mStep);
        m3 = v128.load(at + 15 * mStep);
        const s3 = f32x4.add(f32x4.add(m0, m1), m2);
        const e3 = f32x4.sub(f32x4.sub(m1, m2), m3);
        // Then A along the columns: outputs x0 + x1 + x2 and x1 − x2 − x3, interleaved into eight columns.
        const y00 = f32x4.add(f32x4.add(s0, s1), s2);
        const y01 = f32x4.sub(f32x4.sub(s1, s2), s3);
        const to = y0 + <usize>j * 8;
        v128.store(to, v128.shuffle<f32>(y00, y01, 0, 4, 1, 5));
        v128.store(to, v128.shuffle<f32>(y00, y01, 2, 6, 3, 7), 16);
        if (second) {
          const y10 = f32x4.add(f32x4.add(e0, e1), e2);
          const y11 = f32x4.sub(f32x4.sub(e1, e2), e3);
          v128.store(to + rowBytes, v128.shuffle<f32>(y10, y11, 0, 4, 1, 5));
          v128.store(to + rowBytes, v128.shuffle<f32>(y10, y11, 2, 6, 3, 7), 16);
        }
      }
      for (; j < tw; j++) outputTile33(from + <usize>j * 4, mStep, y0 + <usize>j * 8, rowBytes, second, 2 * j + 1 < ow);
    }
  }
}

/** Aᵀ M A of one tile (M_ab at m + (4a + b)·mStep) into y[0..1, 0..1], the second row and column only if inside. */
function outputTile33(m: usize, mStep: usize, y: usize, rowBytes: usize, secondRow: bool, secondCol: bool): void {
  const s0 = colPoint(m, mStep, 0, true);
  const s1 = colPoint(m, mStep, 1, true);
  const s2 = colPoint(m, mStep, 2, true);
  const s3 = colPoint(m, mStep, 3, true);
  store<f32>(y, s0 + s1 + s2);
  if (secondCol) store<f32>(y, s1 - s2 - s3, 4);
  if (!secondRow) return;
  const e0 = colPoint(m, mStep, 0, false);
  const e1 = colPoint(m, mStep, 1, false);
  const e2 = colPoint(m, mStep, 2, false);
  const e3 = colPoint(m, mStep, 3, false);
  store<f32>(y + rowBytes, e0 + e1 + e2);
  if (secondCol) store<f32>(y + rowBytes, e1 - e2 - e3, 4);
}

/** Column b of Aᵀ M for one tile: M_0b + M_1b + M_2b (`first`), else M_1b − M_2b − M_3b. */
function colPoint(m: usize, mStep: usize, b: i32, first: bool): f32 {
  const m1 = load<f32>(m + <usize>(4 + b) * mStep);
  const m2 = load<f32>(m + <usize>(8 + b) * mStep);
  if (first) return load<f32>(m + <usize>b * mStep) + m1 + m2;
  return m1 - m2 - load<f32>(m + <usize>(12 + b) * mStep);
}

// F(4×4, 3×3): a 6×6 input tile gives 4×4 outputs from 36 products, where F(2×2, 3×3) takes 16 for 2×2: 36 matrix
// products of 1/4 the im2col product's work (F(2×2, 3×3): 4/9), for transforms about twice as long per output and a
// larger rounding error. The points are 0, 1, −1, 1/2, −2 and ∞ rather than the usual 0, ±1, ±2, ∞: in a float32
// simulation (64 channels, uniform inputs) the largest error came out 2–3 times smaller, for the same work. Along one
// axis:
//   Bᵀ d = ((d0 + d4) − 2d2 + 3/2 (d3 − d1), (d4 − d1) + d2/2 + 5/2 d3, (d4 + d1) − 5/2 d2 + d3/2,
//           (d4 − d2) + 2(d3 − d1), (d4 − d2) − (d3 − d1)/2, (d1 + d5) − 2d3 + 3/2 (d4 − d2)),
//   G g = (g0, (g0 + g1 + g2)/3, −(g0 − g1 + g2)/3, −(16g0 + 8g1 + 4g2)/15, (g0 − 2g1 + 4g2)/15, g2),
//   Aᵀ m = (m0 + (m1 + m2) + (m3 + m4), (m1 − m2) + m3/2 − 2m4, (m1 + m2) + m3/4 + 4m4, (m1 − m2) + m3/8 − 8m4 + m5).
// Matrix t = 6a + b holds point a down the tile and b across it.

/** Row k of G applied to three taps. */
@inline
function gPoint(k: i32, g0: f32, g1: f32, g2: f32): f32 {
  if (k == 0) return g0;
  if (k == 1) return (g0 + g1 + g2) * <f32>(1.0 / 3.0);
  if (k == 2) return -(g0 - g1 + g2) * <f32>(1.0 / 3.0);
  if (k == 3) return -(<f32>16 * g0 + <f32>8 * g1 + <f32>4 * g2) * <f32>(1.0 / 15.0);
  if (k == 4) return (g0 - <f32>2 * g1 + <f32>4 * g2) * <f32>(1.0 / 15.0);
  return g2;
}

/** Bᵀ of six vectors, stored at q, q + step, …, q + 5·step. */
@inline
function bt6(d0: v128, d1: v128, d2: v128, d3: v128, d4: v128, d5: v128, q: usize, step: usize): void {
  const half = f32x4.splat(0.5);
  const threeHalves = f32x4.splat(1.5);
  const two = f32x4.splat(2);
  const fiveHalves = f32x4.splat(2.5);
  const e = f32x4.sub(d4, d2);
  const f = f32x4.sub(d3, d1);
  v128.store(q, f32x4.add(f32x4.sub(f32x4.add(d0, d4), f32x4.mul(two, d2)), f32x4.mul(threeHalves, f)));
  v128.store(q + step, f32x4.add(f32x4.add(f32x4.sub(d4, d1), f32x4.mul(half, d2)), f32x4.mul(fiveHalves, d3)));
  v128.store(q + 2 * step, f32x4.add(f32x4.sub(f32x4.add(d4, d1), f32x4.mul(fiveHalves, d2)), f32x4.mul(half, d3)));
  v128.store(q + 3 * step, f32x4.add(e, f32x4.mul(two, f)));
  v128.store(q + 4 * step, f32x4.sub(e, f32x4.mul(half, f)));
  v128.store(q + 5 * step, f32x4.add(f32x4.sub(f32x4.add(d1, d5), f32x4.mul(two, d3)), f32x4.mul(threeHalves, e)));
}

/** Aᵀ of six vectors, stored at q, q + step, q + 2·step, q + 3·step. */
@inline
function at6(m0: v128, m1: v128, m2: v128, m3: v128, m4: v128, m5: v128, q: usize, step: usize): void {
  v128.store(q, atPoint(0, m0, m1, m2, m3, m4, m5));
  v128.store(q + step, atPoint(1, m0, m1, m2, m3, m4, m5));
  v128.store(q + 2 * step, atPoint(2, m0, m1, m2, m3, m4, m5));
  v128.store(q + 3 * step, atPoint(3, m0, m1, m2, m3, m4, m5));
}

/** Output a (0 to 3, a constant where inlined) of Aᵀ over six vectors. */
@inline
function atPoint(a: i32, m0: v128, m1: v128, m2: v128, m3: v128, m4: v128, m5: v128): v128 {
  if (a == 0) return f32x4.add(f32x4.add(m0, f32x4.add(m1, m2)), f32x4.add(m3, m4));
  if (a == 1) return f32x4.sub(f32x4.add(f32x4.sub(m1, m2), f32x4.mul(f32x4.splat(0.5), m3)), f32x4.mul(f32x4.splat(2), m4));
  if (a == 2) return f32x4.add(f32x4.add(f32x4.add(m1, m2), f32x4.mul(f32x4.splat(0.25), m3)), f32x4.mul(f32x4.splat(4), m4));
  return f32x4.add(
    f32x4.sub(f32x4.add(f32x4.sub(m1, m2), f32x4.mul(f32x4.splat(0.125), m3)), f32x4.mul(f32x4.splat(8), m4)),
    m5,
  );
}

/**
 * The transforms before the 36 products of F(4×4, 3×3): U_t = (G g Gᵀ)_t for every kernel (o·c of them, 3×3) and
 * V_t = (Bᵀ d B)_t for every 6×6 tile of every input plane, as wino33_in_f32 lays them out (U_t[o, c], V_t[c, tiles],
 * tiles th·tw with th = (h − 2)/4, tw = (wd − 2)/4). x is padded so that h − 2 and wd − 2 are multiples of 4, tw ≥ 4,
 * and 8 bytes past its last plane are readable (the last four tiles of a row load two floats past it). Four tiles
 * along a row at a time, a lane each; when tw is not a multiple of 4 the last four overlap the ones before and write
 * the same values again. Per tile, Bᵀ along each of the six rows goes to V's 36 slots, then Bᵀ down each column in
 * place. `part` of `parts` as wino33_in_f32.
 */
export function wino44_in_f32(
  x: usize,
  w: usize,
  c: i32,
  h: i32,
  wd: i32,
  o: i32,
  u: usize,
  uFloats: i32,
  v: usize,
  vFloats: i32,
  part: i32,
  parts: i32,
): void {
  const th = (h - 2) >> 2;
  const tw = (wd - 2) >> 2;
  const tiles = th * tw;
  const uStep = <usize>uFloats * 4;
  const vStep = <usize>vFloats * 4;
  const uEnd = share(o * c, part + 1, parts);
  for (let i = share(o * c, part, parts); i < uEnd; i++) {
    const g = w + <usize>i * 36;
    const at = u + <usize>i * 4;
    for (let a = 0; a < 6; a++) {
      // Row a of G g (G down each kernel column), then G along it.
      const r0 = gPoint(a, load<f32>(g), load<f32>(g, 12), load<f32>(g, 24));
      const r1 = gPoint(a, load<f32>(g, 4), load<f32>(g, 16), load<f32>(g, 28));
      const r2 = gPoint(a, load<f32>(g, 8), load<f32>(g, 20), load<f32>(g, 32));
      for (let b = 0; b < 6; b++) store<f32>(at + <usize>(6 * a + b) * uStep, gPoint(b, r0, r1, r2));
    }
  }
  const cEnd = share(c, part + 1, parts);
  const rowBytes = <usize>wd * 4;
  for (let ci = share(c, part, parts); ci < cEnd; ci++) {
    const plane = x + <usize>ci * <usize>h * rowBytes;
    for (let ti = 0; ti < th; ti++) {
      const r0 = plane + <usize>(4 * ti) * rowBytes;
      const out = v + (<usize>ci * <usize>tiles + <usize>ti * <usize>tw) * 4;
      for (let j = 0; j < tw; j += 4) {
        if (j + 4 > tw) j = tw - 4;
        const to = out + <usize>j * 4;
        for (let r = 0; r < 6; r++) {
          // Lane k holds tile j + k: d0..d3 transpose the four vectors of columns 4j … 4j + 15, d4 and d5 are the
          // first two lanes of the four from 4j + 4.
          const at = r0 + <usize>r * rowBytes + <usize>j * 16;
          const v0 = v128.load(at);
          const v1 = v128.load(at, 16);
          const v2 = v128.load(at, 32);
          const v3 = v128.load(at, 48);
          const v4 = v128.load(at, 64);
          const t0 = v128.shuffle<f32>(v0, v1, 0, 4, 1, 5);
          const t1 = v128.shuffle<f32>(v0, v1, 2, 6, 3, 7);
          const t2 = v128.shuffle<f32>(v2, v3, 0, 4, 1, 5);
          const t3 = v128.shuffle<f32>(v2, v3, 2, 6, 3, 7);
          const s0 = v128.shuffle<f32>(v1, v2, 0, 4, 1, 5);
          const s1 = v128.shuffle<f32>(v3, v4, 0, 4, 1, 5);
          bt6(
            v128.shuffle<f32>(t0, t2, 0, 1, 4, 5),
            v128.shuffle<f32>(t0, t2, 2, 3, 6, 7),
            v128.shuffle<f32>(t1, t3, 0, 1, 4, 5),
            v128.shuffle<f32>(t1, t3, 2, 3, 6, 7),
            v128.shuffle<f32>(s0, s1, 0, 1, 4, 5),
            v128.shuffle<f32>(s0, s1, 2, 3, 6, 7),
            to + <usize>(6 * r) * vStep,
            vStep,
          );
        }
        for (let b = 0; b < 6; b++) {
          const q = to + <usize>b * vStep;
          const down = 6 * vStep;
          bt6(
            v128.load(q),
            v128.load(q + down),
            v128.load(q + 2 * down),
            v128.load(q + 3 * down),
            v128.load(q + 4 * down),
            v128.load(q + 5 * down),
            q,
            down,
          );
        }
      }
    }
  }
}

/**
 * y (o planes of oh×ow) from the 36 products M_t[o, tiles] of F(4×4, 3×3): Aᵀ M A per tile, th = ⌈oh/4⌉ by
 * tw = ⌈ow/4⌉ tiles (tw ≥ 4). Four tiles along a row at a time: Aᵀ down each column into M's first four rows of slots,
 * in place, then Aᵀ along each of the four rows and a 4×4 transpose to a row segment of each tile. When tw is not a
 * multiple of 4 the last four tiles overlap the ones before, whose slots are overwritten by then: only the tiles not
 * yet written are stored. Rows and columns past oh and ow are not written. `part` of `parts` as wino33_out_f32.
 */
export function wino44_out_f32(
  y: usize,
  oh: i32,
  ow: i32,
  o: i32,
  m: usize,
  mFloats: i32,
  part: i32,
  parts: i32,
): void {
  const th = (oh + 3) >> 2;
  const tw = (ow + 3) >> 2;
  const tiles = th * tw;
  const mStep = <usize>mFloats * 4;
  const rowBytes = <usize>ow * 4;
  const oEnd = share(o, part + 1, parts);
  for (let oi = share(o, part, parts); oi < oEnd; oi++) {
    const mo = m + <usize>oi * <usize>tiles * 4;
    const yo = y + <usize>oi * <usize>oh * rowBytes;
    for (let ti = 0; ti < th; ti++) {
      const from = mo + <usize>ti * <usize>tw * 4;
      for (let j0 = 0; j0 < tw; j0 += 4) {
        const j = j0 + 4 > tw ? tw - 4 : j0;
        const at = from + <usize>j * 4;
        const down = 6 * mStep;
        for (let b = 0; b < 6; b++) {
          const q = at + <usize>b * mStep;
          at6(
            v128.load(q),
            v128.load(q + down),
            v128.load(q + 2 * down),
            v128.load(q + 3 * down),
            v128.load(q + 4 * down),
            v128.load(q + 5 * down),
            q,
            down,
          );
        }
        for (let r = 0; r < 4; r++) {
          const row = 4 * ti + r;
          if (row >= oh) break;
          const q = at + <usize>(6 * r) * mStep;
          const m0 = v128.load(q);
          const m1 = v128.load(q + mStep);
          const m2 = v128.load(q + 2 * mStep);
          const m3 = v128.load(q + 3 * mStep);
          const m4 = v128.load(q + 4 * mStep);
          const m5 = v128.load(q + 5 * mStep);
          // Column c of the four tiles' outputs in this row, a tile a lane; transposed, a tile's four columns.
          const c0 = atPoint(0, m0, m1, m2, m3, m4, m5);
          const c1 = atPoint(1, m0, m1, m2, m3, m4, m5);
          const c2 = atPoint(2, m0, m1, m2, m3, m4, m5);
          const c3 = atPoint(3, m0, m1, m2, m3, m4, m5);
          const t0 = v128.shuffle<f32>(c0, c1, 0, 4, 1, 5);
          const t1 = v128.shuffle<f32>(c0, c1, 2, 6, 3, 7);
          const t2 = v128.shuffle<f32>(c2, c3, 0, 4, 1, 5);
          const t3 = v128.shuffle<f32>(c2, c3, 2, 6, 3, 7);
          const yr = yo + <usize>row * rowBytes;
          storeTileRow(yr, j, j0, ow, 0, v128.shuffle<f32>(t0, t2, 0, 1, 4, 5));
          storeTileRow(yr, j, j0, ow, 1, v128.shuffle<f32>(t0, t2, 2, 3, 6, 7));
          storeTileRow(yr, j, j0, ow, 2, v128.shuffle<f32>(t1, t3, 0, 1, 4, 5));
          storeTileRow(yr, j, j0, ow, 3, v128.shuffle<f32>(t1, t3, 2, 3, 6, 7));
        }
      }
    }
  }
}

/** Tile j + k's four outputs in row yr, unless an earlier step stored that tile (j + k < j0); clipped at ow. */
@inline
function storeTileRow(yr: usize, j: i32, j0: i32, ow: i32, k: i32, t: v128): void {
  if (j + k < j0) return;
  const col = 4 * (j + k);
  storeUpTo(yr + ((<usize>col) << 2), min(4, ow - col), t);
}

// F(4, 3): F(4×4, 3×3)'s transforms along one axis only, for the kernels F(2, 3) serves (1×3, 3×1, kh×3): four outputs
// from six inputs with 6 products where the direct product takes 12, six matrix products of 1/2 the im2col product's
// work (F(2, 3): 2/3), at two to four times F(2, 3)'s rounding error (see conv2d.ts); wino3_in_f32 with `four` makes
// its transforms of the kernels (gPoint) and of the input (these two functions). Four tiles a step, across the axis
// without taps: tiles along the width are ordered column of tiles first (tile j·oh + r reads x[r, 4j .. 4j + 5]), so
// that four rows fill the lanes; tiles along the height row of tiles first (tile j·wd + q reads x[4j .. 4j + 5, q]),
// four columns the lanes. When that axis is not a multiple of 4, its last four overlap the four before and write the
// same values again.

/**
 * Tile j·oh + r reads x[r, 4j .. 4j + 5] (oh ≥ 4 rows, wd = 4·tw + 2). Four rows a step: their four vectors from 4j
 * transposed are d0..d3, the next two floats of each row transposed d4 and d5.
 */
function inputAlongW43(x: usize, v: usize, vStep: usize, oh: i32, wd: i32): void {
  const tw = (wd - 2) >> 2;
  const rowBytes = <usize>wd * 4;
  for (let j = 0; j < tw; j++) {
    const out = v + <usize>j * <usize>oh * 4;
    for (let r0 = 0; r0 < oh; r0 += 4) {
      const r = r0 + 4 > oh ? oh - 4 : r0;
      const at = x + <usize>r * rowBytes + <usize>j * 16;
      const a0 = v128.load(at);
      const a1 = v128.load(at + rowBytes);
      const a2 = v128.load(at + 2 * rowBytes);
      const a3 = v128.load(at + 3 * rowBytes);
      const t0 = v128.shuffle<f32>(a0, a1, 0, 4, 1, 5);
      const t1 = v128.shuffle<f32>(a0, a1, 2, 6, 3, 7);
      const t2 = v128.shuffle<f32>(a2, a3, 0, 4, 1, 5);
      const t3 = v128.shuffle<f32>(a2, a3, 2, 6, 3, 7);
      const s0 = v128.shuffle<f32>(v128.load64_zero(at, 16), v128.load64_zero(at + rowBytes, 16), 0, 4, 1, 5);
      const s1 = v128.shuffle<f32>(
        v128.load64_zero(at + 2 * rowBytes, 16),
        v128.load64_zero(at + 3 * rowBytes, 16),
        0,
        4,
        1,
        5,
      );
      bt6(
        v128.shuffle<f32>(t0, t2, 0, 1, 4, 5),
        v128.shuffle<f32>(t0, t2, 2, 3, 6, 7),
        v128.shuffle<f32>(t1, t3, 0, 1, 4, 5),
        v128.shuffle<f32>(t1, t3, 2, 3, 6, 7),
        v128.shuffle<f32>(s0, s1, 0, 1, 4, 5),
        v128.shuffle<f32>(s0, s1, 2, 3, 6, 7),
        out + <usize>r * 4,
        vStep,
      );
    }
  }
}

/** Tile j·wd + q reads x[4j .. 4j + 5, q] (h = 4·th + 2, wd ≥ 4): four columns a vector. */
function inputAlongH43(x: usize, v: usize, vStep: usize, h: i32, wd: i32): void {
  const th = (h - 2) >> 2;
  const rowBytes = <usize>wd * 4;
  for (let j = 0; j < th; j++) {
    const r0 = x + <usize>(4 * j) * rowBytes;
    const out = v + <usize>j * rowBytes;
    for (let q0 = 0; q0 < wd; q0 += 4) {
      const q = q0 + 4 > wd ? wd - 4 : q0;
      const at = r0 + <usize>q * 4;
      bt6(
        v128.load(at),
        v128.load(at + rowBytes),
        v128.load(at + 2 * rowBytes),
        v128.load(at + 3 * rowBytes),
        v128.load(at + 4 * rowBytes),
        v128.load(at + 5 * rowBytes),
        out + <usize>q * 4,
        vStep,
      );
    }
  }
}

/**
 * y (o planes of oh×ow) from the six products M_t[o, T] of F(4, 3), after wino3_in_f32 with `four` on an input of h×wd (padded):
 * Aᵀ m per tile, outputs past oh (along the height) or ow (along the width) not written. `part` of `parts` as
 * wino33_out_f32.
 */
export function wino43_out_f32(
  y: usize,
  h: i32,
  wd: i32,
  kh: i32,
  o: i32,
  alongW: bool,
  m: usize,
  mFloats: i32,
  oh: i32,
  ow: i32,
  part: i32,
  parts: i32,
): void {
  // The tiles' grid: rows (along the width) or columns (along the height) across the taps, 4 outputs along them.
  const across = alongW ? h - kh + 1 : wd;
  const along = alongW ? (wd - 2) >> 2 : (h - 2) >> 2;
  const tiles = across * along;
  const mStep = <usize>mFloats * 4;
  const rowBytes = <usize>ow * 4;
  const oEnd = share(o, part + 1, parts);
  for (let oi = share(o, part, parts); oi < oEnd; oi++) {
    const mo = m + <usize>oi * <usize>tiles * 4;
    const yo = y + <usize>oi * <usize>oh * rowBytes;
    for (let j = 0; j < along; j++) {
      for (let i0 = 0; i0 < across; i0 += 4) {
        const i = i0 + 4 > across ? across - 4 : i0;
        const at = mo + (<usize>j * <usize>across + <usize>i) * 4;
        const m0 = v128.load(at);
        const m1 = v128.load(at + mStep);
        const m2 = v128.load(at + 2 * mStep);
        const m3 = v128.load(at + 3 * mStep);
        const m4 = v128.load(at + 4 * mStep);
        const m5 = v128.load(at + 5 * mStep);
        // Output a of the four tiles, a tile a lane.
        const c0 = atPoint(0, m0, m1, m2, m3, m4, m5);
        const c1 = atPoint(1, m0, m1, m2, m3, m4, m5);
        const c2 = atPoint(2, m0, m1, m2, m3, m4, m5);
        const c3 = atPoint(3, m0, m1, m2, m3, m4, m5);
        if (alongW) {
          // Transposed, row i + l's four outputs from column 4j.
          const t0 = v128.shuffle<f32>(c0, c1, 0, 4, 1, 5);
          const t1 = v128.shuffle<f32>(c0, c1, 2, 6, 3, 7);
          const t2 = v128.shuffle<f32>(c2, c3, 0, 4, 1, 5);
          const t3 = v128.shuffle<f32>(c2, c3, 2, 6, 3, 7);
          const yr = yo + (<usize>i * <usize>ow + <usize>(4 * j)) * 4;
          const n = min(4, ow - 4 * j);
          storeUpTo(yr, n, v128.shuffle<f32>(t0, t2, 0, 1, 4, 5));
          storeUpTo(yr + rowBytes, n, v128.shuffle<f32>(t0, t2, 2, 3, 6, 7));
          storeUpTo(yr + 2 * rowBytes, n, v128.shuffle<f32>(t1, t3, 0, 1, 4, 5));
          storeUpTo(yr + 3 * rowBytes, n, v128.shuffle<f32>(t1, t3, 2, 3, 6, 7));
        } else {
          const yr = yo + (<usize>(4 * j) * <usize>ow + <usize>i) * 4;
          const rows = oh - 4 * j;
          v128.store(yr, c0);
          if (rows > 1) v128.store(yr + rowBytes, c1);
          if (rows > 2) v128.store(yr + 2 * rowBytes, c2);
          if (rows > 3) v128.store(yr + 3 * rowBytes, c3);
        }
      }
    }
  }
}

/** The first n (1 to 4) lanes of t at p. */
@inline
function storeUpTo(p: usize, n: i32, t: v128): void {
  if (n == 4) {
    v128.store(p, t);
    return;
  }
  store<f32>(p, f32x4.extract_lane(t, 0));
  if (n > 1) store<f32>(p, f32x4.extract_lane(t, 1), 4);
  if (n > 2) store<f32>(p, f32x4.extract_lane(t, 2), 8);
}
