// Pooling for the wasm dialect (AssemblyScript): max and mean over 2-D windows and the global mean of each plane, float32.

/**
 * y[p, oy, ox] = the max of x[p] over the window at (oy·sh − pt, ox·sw − pl) of kh × kw, clipped to the plane (padded
 * cells never win); a NaN in the window wins and stays, as the CPU kernel's Math.max semantics.
 */
export function max_pool2d_f32(
  x: usize,
  y: usize,
  planes: i32,
  h: i32,
  w: i32,
  kh: i32,
  kw: i32,
  sh: i32,
  sw: i32,
  pt: i32,
  pl: i32,
  oh: i32,
  ow: i32,
): void {
  let yp = y;
  for (let p = 0; p < planes; p++) {
    const plane = x + <usize>p * <usize>h * <usize>w * 4;
    for (let oy = 0; oy < oh; oy++) {
      const y0 = oy * sh - pt;
      const ky0 = max(0, y0);
      const ky1 = min(h, y0 + kh);
      let ox = 0;
      // Pairs side by side (kw = sw = 2, no left pad, the usual 2×2 / 1×2 pool): four outputs a step, the even and odd
      // elements of eight inputs split by shuffles and combined by f32x4.max (NaN wins there too).
      if (kw == 2 && sw == 2 && pl == 0) {
        let acc = f32x4.splat(0);
        for (; ox + 4 <= ow; ox += 4) {
          let first = true;
          for (let iy = ky0; iy < ky1; iy++) {
            const at = plane + (<usize>iy * <usize>w + <usize>ox * 2) * 4;
            const a = v128.load(at);
            const b = v128.load(at, 16);
            const m = f32x4.max(v128.shuffle<f32>(a, b, 0, 2, 4, 6), v128.shuffle<f32>(a, b, 1, 3, 5, 7));
            acc = first ? m : f32x4.max(acc, m);
            first = false;
          }
          if (first) acc = f32x4.splat(-Infinity);
          v128.store(yp, acc);
          yp += 16;
        }
      }
      for (; ox < ow; ox++) {
        const x0 = ox * sw - pl;
        const kx0 = max(0, x0);
        const kx1 = min(w, x0 + kw);
        let best: f32 = -Infinity;
        for (let iy = ky0; iy < ky1; iy++) {
          const row = plane + <usize>iy * <usize>w * 4;
          // f32.max: a NaN operand gives NaN, so a NaN in the window wins and stays.
          for (let ix = kx0; ix < kx1; ix++) best = max(best, load<f32>(row + <usize>ix * 4));
        }
        store<f32>(yp, best);
        yp += 4;
      }
    }
  }
}

/**
 * y[p, oy, ox] = the mean of x[p] over the window at (oy·sh − pt, ox·sw − pl) of kh × kw, summed in float64 as the CPU
 * kernel does. The divisor: the window's cells inside the plane, or with hEnd ≥ 0 (count_include_pad) its cells above
 * row hEnd and left of column wEnd (the padded plane's edges).
 */
export function avg_pool2d_f32(
  x: usize,
  y: usize,
  planes: i32,
  h: i32,
  w: i32,
  kh: i32,
  kw: i32,
  sh: i32,
  sw: i32,
  pt: i32,
  pl: i32,
  oh: i32,
  ow: i32,
  hEnd: i32,
  wEnd: i32,
): void {
  let yp = y;
  for (let p = 0; p < planes; p++) {
    const plane = x + <usize>p * <usize>h * <usize>w * 4;
    for (let oy = 0; oy < oh; oy++) {
      const y0 = oy * sh - pt;
      const ky0 = max(0, y0);
      const ky1 = min(h, y0 + kh);
      const rows = hEnd >= 0 ? min(y0 + kh, hEnd) - y0 : ky1 - ky0;
      for (let ox = 0; ox < ow; ox++) {
        const x0 = ox * sw - pl;
        const kx0 = max(0, x0);
        const kx1 = min(w, x0 + kw);
        const cols = wEnd >= 0 ? min(x0 + kw, wEnd) - x0 : kx1 - kx0;
        let s: f64 = 0;
        for (let iy = ky0; iy < ky1; iy++) {
          const row = plane + <usize>iy * <usize>w * 4;
          for (let ix = kx0; ix < kx1; ix++) s += <f64>load<f32>(row + <usize>ix * 4);
        }
        store<f32>(yp, <f32>(s / <f64>(max(rows, 0) * max(cols, 0))));
        yp += 4;
      }
    }
  }
}

/**
 * y[p] = the mean of the `plane` elements of plane p, summed in float64 as the CPU kernel does: eight at a time into
 * four f64x2 sums (one chain of scalar adds would wait on each add's latency), then the rest one by one.
 */
export function global_avg_f32(x: usize, y: usize, planes: i32, plane: i32): void {
  for (let p = 0; p < planes; p++) {
    const base = x + <usize>p * <usize>plane * 4;
    let s0 = f64x2.splat(0);
    let s1 = f64x2.splat(0);
    let s2 = f64x2.splat(0);
    let s3 = f64x2.splat(0);
    let i = 0;
    for (; i + 8 <= plane; i += 8) {
      const at = base + <usize>i * 4;
      const v = v128.load(at);
      const u = v128.load(at, 16);
      s0 = f64x2.add(s0, f64x2.promote_low_f32x4(v));
      s1 = f64x2.add(s1, f64x2.promote_low_f32x4(v128.shuffle<f32>(v, v, 2, 3, 0, 1)));
      s2 = f64x2.add(s2, f64x2.promote_low_f32x4(u));
      s3 = f64x2.add(s3, f64x2.promote_low_f32x4(v128.shuffle<f32>(u, u, 2, 3, 0, 1)));
    }
    const t = f64x2.add(f64x2.add(s0, s1), f64x2.add(s2, s3));
    let s: f64 = f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
    for (; i < plane; i++) s += <f64>load<f32>(base + <usize>i * 4);
    store<f32>(y + <usize>p * 4, <f32>(s / <f64>plane));
  }
}
