// Winograd F(2, 3) for the wasm dialect (AssemblyScript): a convolution whose kernel is 3 taps along one axis (1×3,
// 3×1, or kh×3 with the kernel rows as more input channels; stride 1), two outputs along the axis from four inputs with 4 products where the direct
// product takes 6: four matrix products of 2/3 the work of the im2col one, between a transform of the input and one
// of the output. y = Aᵀ[(G g) ⊙ (Bᵀ d)] with, for taps g and inputs d (points 0, 1, −1, ∞):
//   Bᵀ d = (d0 − d2, d1 + d2, d2 − d1, d1 − d3),  G g = (g0, (g0 + g1 + g2) / 2, (g0 − g1 + g2) / 2, g2),
//   Aᵀ m = (m0 + m1 + m2, m1 − m2 − m3).

/**
 * The valid (unpadded) convolution of x (c planes of h×wd) with w, in three steps: wino3_in_f32 here, four matrix
 * products M_t[o, T] = U_t[o, K] · V_t[K, T] (t = 0..3, each matmul_f32, run from JavaScript so that threads can split
 * them), then wino3_out_f32. When `alongW`, w has kh×3 taps (o·c·kh·3): F(2, 3) along the width, the kh rows as more
 * input rows (row c·kh + ky of V reads the plane ky rows lower), K = c·kh; else 3×1 taps along the height, K = c. The
 * output along the 3 taps (wd − 2, or h − 2) must be even; T = output positions / 2 tiles. `work` holds U (4·o·K
 * floats), then V (4·K·T), then M (4·o·T). This call transforms its `part` of `parts` equal shares of U's rows and of
 * the input channels (threads run the parts side by side; one thread passes 0 of 1).
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
  work: usize,
  part: i32,
  parts: i32,
): void {
  const oh = alongW ? h - kh + 1 : h - 2;
  const ow = alongW ? wd - 2 : wd;
  const tiles = (oh * ow) >> 1;
  const k = alongW ? c * kh : c;
  const u = work;
  const v = u + <usize>4 * <usize>o * <usize>k * 4;
  const uStep = <usize>o * <usize>k * 4;
  const vStep = <usize>k * <usize>tiles * 4;
  // G g per output and input row (channel, or channel and kernel row): U_t[o, k].
  const half: f32 = 0.5;
  const uEnd = share(o * k, part + 1, parts);
  for (let i = share(o * k, part, parts); i < uEnd; i++) {
    const g = w + <usize>i * 12;
    const g0 = load<f32>(g);
    const g1 = load<f32>(g, 4);
    const g2 = load<f32>(g, 8);
    const at = u + <usize>i * 4;
    store<f32>(at, g0);
    store<f32>(at + uStep, (g0 + g1 + g2) * half);
    store<f32>(at + 2 * uStep, (g0 - g1 + g2) * half);
    store<f32>(at + 3 * uStep, g2);
  }
  // Bᵀ d per input row and tile: V_t[k, tile].
  const cEnd = share(c, part + 1, parts);
  for (let ci = share(c, part, parts); ci < cEnd; ci++) {
    const plane = x + <usize>ci * <usize>h * <usize>wd * 4;
    if (!alongW) inputAlongH(plane, v + <usize>ci * <usize>tiles * 4, vStep, h, wd);
    else
      for (let ky = 0; ky < kh; ky++) {
        const row = <usize>(ci * kh + ky) * <usize>tiles * 4;
        inputAlongW(plane + <usize>ky * <usize>wd * 4, v + row, vStep, oh, wd);
      }
  }
}

/**
 * Aᵀ m per output channel and tile into y (o planes of the output), after wino3_in_f32 and the four products; this
 * call's `part` of `parts` equal shares of the output channels.
 */
export function wino3_out_f32(
  y: usize,
  c: i32,
  h: i32,
  wd: i32,
  kh: i32,
  o: i32,
  alongW: bool,
  work: usize,
  part: i32,
  parts: i32,
): void {
  const oh = alongW ? h - kh + 1 : h - 2;
  const ow = alongW ? wd - 2 : wd;
  const tiles = (oh * ow) >> 1;
  const k = alongW ? c * kh : c;
  const m = work + (<usize>4 * <usize>o * <usize>k + <usize>4 * <usize>k * <usize>tiles) * 4;
  const mStep = <usize>o * <usize>tiles * 4;
  const oEnd = share(o, part + 1, parts);
  for (let oi = share(o, part, parts); oi < oEnd; oi++) {
    const mo = m + <usize>oi * <usize>tiles * 4;
    const yo = y + <usize>oi * <usize>oh * <usize>ow * 4;
    if (alongW) outputAlongW(mo, mStep, yo, tiles);
    else outputAlongH(mo, mStep, yo, oh, ow);
  }
}

/** Where share `part` of `parts` of `n` items starts (share parts is n). */
function share(n: i32, part: i32, parts: i32): i32 {
  return <i32>((<i64>n * <i64>part) / <i64>parts);
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
