// Sum reduction for the wasm dialect (AssemblyScript): x viewed as (outer, len, inner) is summed over len.

/** y[o, i] = Σ_k x[o, k, i]. Rows (inner = 1) reduce across lanes; otherwise whole inner rows are added as vectors. */
export function sum_f32(x: usize, y: usize, outer: i32, len: i32, inner: i32): void {
  if (inner == 1) {
    const row = (<usize>len) << 2;
    const vecEnd = (<usize>(len & ~7)) << 2;
    for (let o = 0; o < outer; o++) {
      const r = x + <usize>o * row;
      let s0 = f32x4.splat(0);
      let s1 = f32x4.splat(0);
      for (let i: usize = 0; i < vecEnd; i += 32) {
        s0 = f32x4.add(s0, v128.load(r + i));
        s1 = f32x4.add(s1, v128.load(r + i, 16));
      }
      const sv = f32x4.add(s0, s1);
      let s =
        <f64>f32x4.extract_lane(sv, 0) +
        <f64>f32x4.extract_lane(sv, 1) +
        <f64>f32x4.extract_lane(sv, 2) +
        <f64>f32x4.extract_lane(sv, 3);
      for (let i = vecEnd; i < row; i += 4) s += <f64>load<f32>(r + i);
      store<f32>(y + ((<usize>o) << 2), <f32>s);
    }
    return;
  }
  const rowBytes = (<usize>inner) << 2;
  const vecEnd = (<usize>(inner & ~3)) << 2;
  for (let o = 0; o < outer; o++) {
    const dst = y + <usize>o * rowBytes;
    memory.fill(dst, 0, rowBytes);
    for (let k = 0; k < len; k++) {
      const src = x + (<usize>o * <usize>len + <usize>k) * rowBytes;
      for (let i: usize = 0; i < vecEnd; i += 16)
        v128.store(dst + i, f32x4.add(v128.load(dst + i), v128.load(src + i)));
      for (let i = vecEnd; i < rowBytes; i += 4) store<f32>(dst + i, load<f32>(dst + i) + load<f32>(src + i));
    }
  }
}

export function sum_f64(x: usize, y: usize, outer: i32, len: i32, inner: i32): void {
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      let s: f64 = 0;
      for (let k = 0; k < len; k++)
        s += load<f64>(x + ((<usize>o * <usize>len + <usize>k) * <usize>inner + <usize>i) * 8);
      store<f64>(y + (<usize>o * <usize>inner + <usize>i) * 8, s);
    }
  }
}
