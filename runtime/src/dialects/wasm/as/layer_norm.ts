// Layer normalization for the wasm dialect (AssemblyScript): rows of length d, normalized then scaled and shifted.

/**
 * y[r, k] = (x[r, k] − mean) / sqrt(var + epsilon) · scale[k] + bias[k]. Mean and variance come from one f32x4 pass
 * over x − x[r, 0]: shifting by a value of the row keeps Σv² − (Σv)²/d from cancelling when the mean is large
 * against the spread, which is what makes the one-pass formula unsafe unshifted.
 */
export function layer_norm_f32(x: usize, scale: usize, bias: usize, y: usize, rows: i32, d: i32, epsilon: f64): void {
  const rowBytes = (<usize>d) << 2;
  const vecEnd = (<usize>(d & ~3)) << 2;
  for (let r = 0; r < rows; r++) {
    const xr = x + <usize>r * rowBytes;
    const yr = y + <usize>r * rowBytes;
    const shift = load<f32>(xr);
    const shiftv = f32x4.splat(shift);
    let s1 = f32x4.splat(0);
    let s2 = f32x4.splat(0);
    for (let i: usize = 0; i < vecEnd; i += 16) {
      const v = f32x4.sub(v128.load(xr + i), shiftv);
      s1 = f32x4.add(s1, v);
      s2 = f32x4.add(s2, f32x4.mul(v, v));
    }
    let t1 =
      <f64>f32x4.extract_lane(s1, 0) +
      <f64>f32x4.extract_lane(s1, 1) +
      <f64>f32x4.extract_lane(s1, 2) +
      <f64>f32x4.extract_lane(s1, 3);
    let t2 =
      <f64>f32x4.extract_lane(s2, 0) +
      <f64>f32x4.extract_lane(s2, 1) +
      <f64>f32x4.extract_lane(s2, 2) +
      <f64>f32x4.extract_lane(s2, 3);
    for (let i = vecEnd; i < rowBytes; i += 4) {
      const v = <f64>(load<f32>(xr + i) - shift);
      t1 += v;
      t2 += v * v;
    }
    const m1 = t1 / <f64>d;
    // Rounding can leave a tiny negative where the true variance is 0.
    const variance = max(0, t2 / <f64>d - m1 * m1);
    // x − shift is exact for values near the shift, so subtracting the small m1 afterwards keeps the digits that
    // subtracting a rounded mean (large when the row's mean is large) in one step would lose.
    const centre = f32x4.splat(<f32>m1);
    const inv = f32x4.splat(<f32>(1 / Math.sqrt(variance + epsilon)));
    for (let i: usize = 0; i < vecEnd; i += 16) {
      const n = f32x4.mul(f32x4.sub(f32x4.sub(v128.load(xr + i), shiftv), centre), inv);
      v128.store(yr + i, f32x4.add(f32x4.mul(n, v128.load(scale + i)), v128.load(bias + i)));
    }
    const centreS = f32x4.extract_lane(centre, 0);
    const invS = f32x4.extract_lane(inv, 0);
    for (let i = vecEnd; i < rowBytes; i += 4) {
      store<f32>(yr + i, (load<f32>(xr + i) - shift - centreS) * invS * load<f32>(scale + i) + load<f32>(bias + i));
    }
  }
}

/** The float64 version: plain two-pass mean and centered variance (tests and gradchecks; speed is the f32 path's job). */
export function layer_norm_f64(x: usize, scale: usize, bias: usize, y: usize, rows: i32, d: i32, epsilon: f64): void {
  const rowBytes = (<usize>d) << 3;
  for (let r = 0; r < rows; r++) {
    const xr = x + <usize>r * rowBytes;
    const yr = y + <usize>r * rowBytes;
    let mean: f64 = 0;
    for (let i: usize = 0; i < rowBytes; i += 8) mean += load<f64>(xr + i);
    mean /= <f64>d;
    let variance: f64 = 0;
    for (let i: usize = 0; i < rowBytes; i += 8) {
      const v = load<f64>(xr + i) - mean;
      variance += v * v;
    }
    const inv = 1 / Math.sqrt(variance / <f64>d + epsilon);
    for (let i: usize = 0; i < rowBytes; i += 8) {
      store<f64>(yr + i, (load<f64>(xr + i) - mean) * inv * load<f64>(scale + i) + load<f64>(bias + i));
    }
  }
}
