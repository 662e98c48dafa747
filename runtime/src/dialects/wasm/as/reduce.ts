// Reductions for the wasm dialect (AssemblyScript): x viewed as (outer, len, inner) is folded over len.

/** What a reduction folds with: a sum (divided by `div` at the end: 1 for sum, the count for mean), a max or a min. */
const SUM = 0;
const MAX = 1;

/**
 * y[o, i] = fold_k x[o, k, i] (a sum is divided by `div`). Rows (inner = 1) fold 16 lanes at a time in four
 * accumulators (sums then add across lanes in f64); otherwise whole inner rows are folded as vectors. max and min
 * propagate NaN as the CPU dialect's Math.max/min do; a max or min needs len ≥ 1.
 */
export function reduce_f32(x: usize, y: usize, outer: i32, len: i32, inner: i32, kind: i32, div: f64): void {
  if (inner == 1) {
    const row = (<usize>len) << 2;
    for (let o = 0; o < outer; o++) {
      const r = x + <usize>o * row;
      store<f32>(y + ((<usize>o) << 2), kind == SUM ? <f32>(sumRow_f32(r, row) / div) : extremeRow_f32(r, row, kind));
    }
    return;
  }
  const rowBytes = (<usize>inner) << 2;
  const vecEnd = (<usize>(inner & ~3)) << 2;
  for (let o = 0; o < outer; o++) {
    const dst = y + <usize>o * rowBytes;
    const first = x + <usize>o * <usize>len * rowBytes;
    if (len == 0) memory.fill(dst, 0, rowBytes);
    else memory.copy(dst, first, rowBytes);
    for (let k = 1; k < len; k++) {
      const src = first + <usize>k * rowBytes;
      if (kind == SUM) {
        for (let i: usize = 0; i < vecEnd; i += 16)
          v128.store(dst + i, f32x4.add(v128.load(dst + i), v128.load(src + i)));
        for (let i = vecEnd; i < rowBytes; i += 4) store<f32>(dst + i, load<f32>(dst + i) + load<f32>(src + i));
      } else if (kind == MAX) {
        for (let i: usize = 0; i < vecEnd; i += 16)
          v128.store(dst + i, f32x4.max(v128.load(dst + i), v128.load(src + i)));
        for (let i = vecEnd; i < rowBytes; i += 4)
          store<f32>(dst + i, Mathf.max(load<f32>(dst + i), load<f32>(src + i)));
      } else {
        for (let i: usize = 0; i < vecEnd; i += 16)
          v128.store(dst + i, f32x4.min(v128.load(dst + i), v128.load(src + i)));
        for (let i = vecEnd; i < rowBytes; i += 4)
          store<f32>(dst + i, Mathf.min(load<f32>(dst + i), load<f32>(src + i)));
      }
    }
    if (kind == SUM && div != 1)
      for (let i: usize = 0; i < rowBytes; i += 4) store<f32>(dst + i, <f32>(<f64>load<f32>(dst + i) / div));
  }
}

/** The sum of one contiguous row of `bytes` bytes, in f64 across the four f32x4 accumulators and the tail. */
@inline
function sumRow_f32(r: usize, bytes: usize): f64 {
  const vecEnd = bytes & ~63;
  let s0 = f32x4.splat(0);
  let s1 = f32x4.splat(0);
  let s2 = f32x4.splat(0);
  let s3 = f32x4.splat(0);
  for (let i: usize = 0; i < vecEnd; i += 64) {
    s0 = f32x4.add(s0, v128.load(r + i));
    s1 = f32x4.add(s1, v128.load(r + i, 16));
    s2 = f32x4.add(s2, v128.load(r + i, 32));
    s3 = f32x4.add(s3, v128.load(r + i, 48));
  }
  const sv = f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3));
  let s =
    <f64>f32x4.extract_lane(sv, 0) +
    <f64>f32x4.extract_lane(sv, 1) +
    <f64>f32x4.extract_lane(sv, 2) +
    <f64>f32x4.extract_lane(sv, 3);
  for (let i = vecEnd; i < bytes; i += 4) s += <f64>load<f32>(r + i);
  return s;
}

/**
 * The max (kind MAX) or min of one contiguous row of `bytes` > 0 bytes; NaN anywhere gives NaN. The vector part folds
 * with pmax/pmin (one instruction each, where f32x4.max/min's NaN rules take several) and keeps NaN apart: a mask
 * of the lanes that were ever NaN (x != x), checked once at the end.
 */
@inline
function extremeRow_f32(r: usize, bytes: usize, kind: i32): f32 {
  const vecEnd = bytes & ~63;
  const init = f32x4.splat(load<f32>(r));
  let m0 = init;
  let m1 = init;
  let m2 = init;
  let m3 = init;
  let n0 = i32x4.splat(0);
  let n1 = n0;
  if (kind == MAX) {
    for (let i: usize = 0; i < vecEnd; i += 64) {
      const v0 = v128.load(r + i);
      const v1 = v128.load(r + i, 16);
      const v2 = v128.load(r + i, 32);
      const v3 = v128.load(r + i, 48);
      m0 = f32x4.pmax(m0, v0);
      m1 = f32x4.pmax(m1, v1);
      m2 = f32x4.pmax(m2, v2);
      m3 = f32x4.pmax(m3, v3);
      n0 = v128.or(n0, v128.or(f32x4.ne(v0, v0), f32x4.ne(v1, v1)));
      n1 = v128.or(n1, v128.or(f32x4.ne(v2, v2), f32x4.ne(v3, v3)));
    }
  } else {
    for (let i: usize = 0; i < vecEnd; i += 64) {
      const v0 = v128.load(r + i);
      const v1 = v128.load(r + i, 16);
      const v2 = v128.load(r + i, 32);
      const v3 = v128.load(r + i, 48);
      m0 = f32x4.pmin(m0, v0);
      m1 = f32x4.pmin(m1, v1);
      m2 = f32x4.pmin(m2, v2);
      m3 = f32x4.pmin(m3, v3);
      n0 = v128.or(n0, v128.or(f32x4.ne(v0, v0), f32x4.ne(v1, v1)));
      n1 = v128.or(n1, v128.or(f32x4.ne(v2, v2), f32x4.ne(v3, v3)));
    }
  }
  if (v128.any_true(v128.or(n0, n1))) return NaN;
  // The four accumulators and the tail by Math's max/min, which propagate a NaN of the (scalar) tail.
  const mv =
    kind == MAX
      ? f32x4.max(f32x4.max(m0, m1), f32x4.max(m2, m3))
      : f32x4.min(f32x4.min(m0, m1), f32x4.min(m2, m3));
  let m: f32;
  if (kind == MAX) {
    m = Mathf.max(
      Mathf.max(f32x4.extract_lane(mv, 0), f32x4.extract_lane(mv, 1)),
      Mathf.max(f32x4.extract_lane(mv, 2), f32x4.extract_lane(mv, 3)),
    );
    for (let i = vecEnd; i < bytes; i += 4) m = Mathf.max(m, load<f32>(r + i));
  } else {
    m = Mathf.min(
      Mathf.min(f32x4.extract_lane(mv, 0), f32x4.extract_lane(mv, 1)),
      Mathf.min(f32x4.extract_lane(mv, 2), f32x4.extract_lane(mv, 3)),
    );
    for (let i = vecEnd; i < bytes; i += 4) m = Mathf.min(m, load<f32>(r + i));
  }
  return m;
}

/** The f64 form: scalar, in the CPU dialect's order (k ascending per output). */
export function reduce_f64(x: usize, y: usize, outer: i32, len: i32, inner: i32, kind: i32, div: f64): void {
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = x + (<usize>o * <usize>len * <usize>inner + <usize>i) * 8;
      const step = (<usize>inner) << 3;
      let s: f64 = kind == SUM ? 0 : load<f64>(base);
      if (kind == SUM) for (let k = 0; k < len; k++) s += load<f64>(base + <usize>k * step);
      else if (kind == MAX) for (let k = 1; k < len; k++) s = Math.max(s, load<f64>(base + <usize>k * step));
      else for (let k = 1; k < len; k++) s = Math.min(s, load<f64>(base + <usize>k * step));
      store<f64>(y + (<usize>o * <usize>inner + <usize>i) * 8, kind == SUM ? s / div : s);
    }
  }
}
