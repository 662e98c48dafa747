// Softmax and log-softmax for the wasm dialect (AssemblyScript): SIMD rows in f32, a strided scalar path otherwise.

import {
  F_E1,
  F_E2,
  F_E3,
  F_E4,
  F_EXP_FLUSH,
  F_LN2_HI,
  F_LN2_LO,
  F_LOG2E,
  F_ONE,
  F_Q1,
  F_Q2,
  F_Q3,
  F_Q4,
  F_ROUNDER,
  K,
  vexp2NearWith,
  vexpFlushWith,
} from './vmath';

/**
 * y = softmax(x) (or log_softmax when `log`) along the middle axis of x viewed as (outer, len, inner).
 * Max-subtracted, so exp never overflows.
 */
export function softmax_f32(x: usize, y: usize, outer: i32, len: i32, inner: i32, log: bool): void {
  if (inner != 1) {
    softmaxStrided<f32>(x, y, outer, len, inner, log);
    return;
  }
  softmaxRows_f32(x, y, outer, len, log);
}

export function softmax_f64(x: usize, y: usize, outer: i32, len: i32, inner: i32, log: bool): void {
  softmaxStrided<f64>(x, y, outer, len, inner, log);
}

/**
 * Set by scanRow_f32: whether every element of the row's whole vectors lies within NEAR of the maximum (or is NaN), so
 * that their exponentials can take vexp2NearWith (no clamp, base 2) instead of vexpFlushWith.
 */
let rowNear = false;
/** How far below the maximum vexp2NearWith may go: its error, 4.1e-7 + |x - m|·7.3e-8 relative, is 1.6e-6 there. */
const NEAR: f32 = 16;

/** What a row scan does besides: nothing, or the previous row's last pass (softmax: scale by k; log: x - k). */
const FINISH_NONE = 0;
const FINISH_SCALE = 1;
const FINISH_SHIFT = 2;

/**
 * Rows of len contiguous elements: per row a scan for the maximum, the exponentials (and their sum), and a last pass
 * that scales them by 1 / sum (softmax) or writes x - (m + log sum) (log). The last pass runs inside the next row's
 * scan, whose loads wait on memory (the row's first touch) while the last pass stores to a row in cache: together
 * they overlap. The last row's runs on its own.
 */
function softmaxRows_f32(x: usize, y: usize, outer: i32, len: i32, log: bool): void {
  const row = (<usize>len) << 2;
  const vecEnd = (<usize>(len & ~3)) << 2;
  const finish = log ? FINISH_SHIFT : FINISH_SCALE;
  let k: f32 = 0;
  for (let o = 0; o < outer; o++) {
    const xr = x + <usize>o * row;
    const yr = y + <usize>o * row;
    const m = scanRow_f32(xr, len, xr - row, yr - row, k, o == 0 ? FINISH_NONE : finish);
    // log: the sum only; else the exponentials go to y as well, to be scaled there.
    const sv = rowNear
      ? expPassNear_f32(xr, yr, vecEnd, f32x4.splat(m), !log)
      : expPassFlush_f32(xr, yr, vecEnd, f32x4.splat(m), !log);
    let s =
      <f64>f32x4.extract_lane(sv, 0) +
      <f64>f32x4.extract_lane(sv, 1) +
      <f64>f32x4.extract_lane(sv, 2) +
      <f64>f32x4.extract_lane(sv, 3);
    for (let j = vecEnd; j < row; j += 4) {
      const e = Math.exp(<f64>load<f32>(xr + j) - <f64>m);
      if (!log) store<f32>(yr + j, <f32>e);
      s += e;
    }
    k = log ? <f32>(<f64>m + Math.log(s)) : <f32>(1 / s);
  }
  if (outer > 0) lastPass_f32(x + <usize>(outer - 1) * row, y + <usize>(outer - 1) * row, len, k, finish);
}

/** A row's last pass on its own (the last row), four vectors a step: y = y·k (FINISH_SCALE) or y = x - k. */
function lastPass_f32(x: usize, y: usize, len: i32, k: f32, finish: i32): void {
  const vecEnd = (<usize>(len & ~3)) << 2;
  const end = (<usize>len) << 2;
  const wideEnd = (<usize>(len & ~15)) << 2;
  const kv = f32x4.splat(k);
  let j: usize = 0;
  if (finish == FINISH_SCALE) {
    for (; j < wideEnd; j += 64) {
      v128.store(y + j, f32x4.mul(v128.load(y + j), kv));
      v128.store(y + j, f32x4.mul(v128.load(y + j, 16), kv), 16);
      v128.store(y + j, f32x4.mul(v128.load(y + j, 32), kv), 32);
      v128.store(y + j, f32x4.mul(v128.load(y + j, 48), kv), 48);
    }
    for (; j < vecEnd; j += 16) v128.store(y + j, f32x4.mul(v128.load(y + j), kv));
    for (; j < end; j += 4) store<f32>(y + j, load<f32>(y + j) * k);
  } else {
    for (; j < wideEnd; j += 64) {
      v128.store(y + j, f32x4.sub(v128.load(x + j), kv));
      v128.store(y + j, f32x4.sub(v128.load(x + j, 16), kv), 16);
      v128.store(y + j, f32x4.sub(v128.load(x + j, 32), kv), 32);
      v128.store(y + j, f32x4.sub(v128.load(x + j, 48), kv), 48);
    }
    for (; j < vecEnd; j += 16) v128.store(y + j, f32x4.sub(v128.load(x + j), kv));
    for (; j < end; j += 4) store<f32>(y + j, load<f32>(x + j) - k);
  }
}

/**
 * The row's maximum, by pmax (one instruction, where f32x4.max's NaN rules take several), four vectors a step reduced
 * in pairs into two accumulators, so neither the loop nor the max chain's latency bounds the pass. pmax may skip a NaN
 * lane: softmax needs no NaN from here, since exp(NaN - m) makes the row's sum, and so the whole row, NaN anyway.
 * Alongside, the minimum of the whole vectors (pmin), which sets rowNear, and the previous row's last pass (px, py,
 * k) as `finish` says, each kind in a loop of its own.
 */
function scanRow_f32(x: usize, len: i32, px: usize, py: usize, k: f32, finish: i32): f32 {
  const vecEnd = (<usize>(len & ~3)) << 2;
  const end = (<usize>len) << 2;
  const wideEnd = (<usize>(len & ~15)) << 2;
  const kv = f32x4.splat(k);
  let m0 = f32x4.splat(-Infinity);
  let m1 = m0;
  let n0 = f32x4.splat(Infinity);
  let n1 = n0;
  let j: usize = 0;
  if (finish == FINISH_SCALE) {
    for (; j < wideEnd; j += 64) {
      const a = v128.load(x + j);
      const b = v128.load(x + j, 16);
      const c = v128.load(x + j, 32);
      const d = v128.load(x + j, 48);
      m0 = f32x4.pmax(m0, f32x4.pmax(a, b));
      m1 = f32x4.pmax(m1, f32x4.pmax(c, d));
      n0 = f32x4.pmin(n0, f32x4.pmin(a, b));
      n1 = f32x4.pmin(n1, f32x4.pmin(c, d));
      v128.store(py + j, f32x4.mul(v128.load(py + j), kv));
      v128.store(py + j, f32x4.mul(v128.load(py + j, 16), kv), 16);
      v128.store(py + j, f32x4.mul(v128.load(py + j, 32), kv), 32);
      v128.store(py + j, f32x4.mul(v128.load(py + j, 48), kv), 48);
    }
    for (; j < vecEnd; j += 16) v128.store(py + j, f32x4.mul(v128.load(py + j), kv));
    for (; j < end; j += 4) store<f32>(py + j, load<f32>(py + j) * k);
  } else if (finish == FINISH_SHIFT) {
    for (; j < wideEnd; j += 64) {
      const a = v128.load(x + j);
      const b = v128.load(x + j, 16);
      const c = v128.load(x + j, 32);
      const d = v128.load(x + j, 48);
      m0 = f32x4.pmax(m0, f32x4.pmax(a, b));
      m1 = f32x4.pmax(m1, f32x4.pmax(c, d));
      n0 = f32x4.pmin(n0, f32x4.pmin(a, b));
      n1 = f32x4.pmin(n1, f32x4.pmin(c, d));
      v128.store(py + j, f32x4.sub(v128.load(px + j), kv));
      v128.store(py + j, f32x4.sub(v128.load(px + j, 16), kv), 16);
      v128.store(py + j, f32x4.sub(v128.load(px + j, 32), kv), 32);
      v128.store(py + j, f32x4.sub(v128.load(px + j, 48), kv), 48);
    }
    for (; j < vecEnd; j += 16) v128.store(py + j, f32x4.sub(v128.load(px + j), kv));
    for (; j < end; j += 4) store<f32>(py + j, load<f32>(px + j) - k);
  } else {
    for (; j < wideEnd; j += 64) {
      const a = v128.load(x + j);
      const b = v128.load(x + j, 16);
      const c = v128.load(x + j, 32);
      const d = v128.load(x + j, 48);
      m0 = f32x4.pmax(m0, f32x4.pmax(a, b));
      m1 = f32x4.pmax(m1, f32x4.pmax(c, d));
      n0 = f32x4.pmin(n0, f32x4.pmin(a, b));
      n1 = f32x4.pmin(n1, f32x4.pmin(c, d));
    }
  }
  // The partial step: up to three whole vectors (the last pass's share of them ran above).
  for (j = wideEnd; j < vecEnd; j += 16) {
    const a = v128.load(x + j);
    m0 = f32x4.pmax(m0, a);
    n0 = f32x4.pmin(n0, a);
  }
  const mv = f32x4.pmax(m0, m1);
  const nv = f32x4.pmin(n0, n1);
  let m = Mathf.max(
    Mathf.max(f32x4.extract_lane(mv, 0), f32x4.extract_lane(mv, 1)),
    Mathf.max(f32x4.extract_lane(mv, 2), f32x4.extract_lane(mv, 3)),
  );
  const lowest = Mathf.min(
    Mathf.min(f32x4.extract_lane(nv, 0), f32x4.extract_lane(nv, 1)),
    Mathf.min(f32x4.extract_lane(nv, 2), f32x4.extract_lane(nv, 3)),
  );
  for (let i = vecEnd; i < end; i += 4) m = Mathf.max(m, load<f32>(x + i));
  // lowest - m rounds like each x - m the pass computes, and is the least of them. A NaN m (from a NaN in the tail)
  // fails the comparison, as does a row of +Infinity (Infinity - Infinity); a NaN that pmax and pmin skipped stays NaN
  // through vexp2NearWith, so its row's sum, and the row, are NaN all the same.
  rowNear = lowest - m >= -NEAR;
  return m;
}

/**
 * e^(x - m) over the row's whole vectors (bytes [0, vecEnd)), summed in two accumulators (half the add latency
 * chain), and stored to y when `write`: for rows whose elements all lie within NEAR of m (rowNear). The exp's
 * constants are loaded once here, before the loops: see vexpNonposWith.
 */
function expPassNear_f32(x: usize, y: usize, vecEnd: usize, mvec: v128, write: bool): v128 {
  const log2e = K(F_LOG2E);
  const rounder = K(F_ROUNDER);
  const q4 = K(F_Q4);
  const q3 = K(F_Q3);
  const q2 = K(F_Q2);
  const q1 = K(F_Q1);
  const one = K(F_ONE);
  let s0 = f32x4.splat(0);
  let s1 = f32x4.splat(0);
  let i: usize = 0;
  if (write) {
    for (; i + 32 <= vecEnd; i += 32) {
      const e0 = vexp2NearWith(f32x4.sub(v128.load(x + i), mvec), log2e, rounder, q4, q3, q2, q1, one);
      const e1 = vexp2NearWith(f32x4.sub(v128.load(x + i, 16), mvec), log2e, rounder, q4, q3, q2, q1, one);
      v128.store(y + i, e0);
      v128.store(y + i, e1, 16);
      s0 = f32x4.add(s0, e0);
      s1 = f32x4.add(s1, e1);
    }
    if (i < vecEnd) {
      const e = vexp2NearWith(f32x4.sub(v128.load(x + i), mvec), log2e, rounder, q4, q3, q2, q1, one);
      v128.store(y + i, e);
      s0 = f32x4.add(s0, e);
    }
  } else {
    for (; i + 32 <= vecEnd; i += 32) {
      const d0 = f32x4.sub(v128.load(x + i), mvec);
      const d1 = f32x4.sub(v128.load(x + i, 16), mvec);
      s0 = f32x4.add(s0, vexp2NearWith(d0, log2e, rounder, q4, q3, q2, q1, one));
      s1 = f32x4.add(s1, vexp2NearWith(d1, log2e, rounder, q4, q3, q2, q1, one));
    }
    if (i < vecEnd) {
      const d = f32x4.sub(v128.load(x + i), mvec);
      s0 = f32x4.add(s0, vexp2NearWith(d, log2e, rounder, q4, q3, q2, q1, one));
    }
  }
  return f32x4.add(s0, s1);
}

/**
 * expPassNear_f32 for any row, by vexpFlushWith: clamped, so that far below m (and at -Infinity) e^(x - m) flushes to
 * 0, and accurate to 4.4e-7 relative however far below m x lies.
 */
function expPassFlush_f32(x: usize, y: usize, vecEnd: usize, mvec: v128, write: bool): v128 {
  const flush = K(F_EXP_FLUSH);
  const log2e = K(F_LOG2E);
  const rounder = K(F_ROUNDER);
  const ln2Hi = K(F_LN2_HI);
  const ln2Lo = K(F_LN2_LO);
  const e4 = K(F_E4);
  const e3 = K(F_E3);
  const e2 = K(F_E2);
  const e1 = K(F_E1);
  const one = K(F_ONE);
  let s0 = f32x4.splat(0);
  let s1 = f32x4.splat(0);
  let i: usize = 0;
  if (write) {
    for (; i + 32 <= vecEnd; i += 32) {
      const d0 = f32x4.sub(v128.load(x + i), mvec);
      const d1 = f32x4.sub(v128.load(x + i, 16), mvec);
      const e0 = vexpFlushWith(d0, flush, log2e, rounder, ln2Hi, ln2Lo, e4, e3, e2, e1, one);
      const e1v = vexpFlushWith(d1, flush, log2e, rounder, ln2Hi, ln2Lo, e4, e3, e2, e1, one);
      v128.store(y + i, e0);
      v128.store(y + i, e1v, 16);
      s0 = f32x4.add(s0, e0);
      s1 = f32x4.add(s1, e1v);
    }
    if (i < vecEnd) {
      const d = f32x4.sub(v128.load(x + i), mvec);
      const e = vexpFlushWith(d, flush, log2e, rounder, ln2Hi, ln2Lo, e4, e3, e2, e1, one);
      v128.store(y + i, e);
      s0 = f32x4.add(s0, e);
    }
  } else {
    for (; i + 32 <= vecEnd; i += 32) {
      const d0 = f32x4.sub(v128.load(x + i), mvec);
      const d1 = f32x4.sub(v128.load(x + i, 16), mvec);
      s0 = f32x4.add(s0, vexpFlushWith(d0, flush, log2e, rounder, ln2Hi, ln2Lo, e4, e3, e2, e1, one));
      s1 = f32x4.add(s1, vexpFlushWith(d1, flush, log2e, rounder, ln2Hi, ln2Lo, e4, e3, e2, e1, one));
    }
    if (i < vecEnd) {
      const d = f32x4.sub(v128.load(x + i), mvec);
      s0 = f32x4.add(s0, vexpFlushWith(d, flush, log2e, rounder, ln2Hi, ln2Lo, e4, e3, e2, e1, one));
    }
  }
  return f32x4.add(s0, s1);
}

/** Any axis, any float width: scalar, accumulating in f64 like the CPU dialect. */
function softmaxStrided<T>(x: usize, y: usize, outer: i32, len: i32, inner: i32, log: bool): void {
  const size = <usize>sizeof<T>();
  const step = <usize>inner * size;
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = (<usize>o * <usize>len * <usize>inner + <usize>i) * size;
      let m: f64 = -Infinity;
      for (let k = 0; k < len; k++) m = Math.max(m, <f64>load<T>(x + base + <usize>k * step));
      let s: f64 = 0;
      for (let k = 0; k < len; k++) {
        const e = Math.exp(<f64>load<T>(x + base + <usize>k * step) - m);
        if (!log) store<T>(y + base + <usize>k * step, <T>e);
        s += e;
      }
      if (log) {
        const shift = m + Math.log(s);
        for (let k = 0; k < len; k++)
          store<T>(y + base + <usize>k * step, <T>(<f64>load<T>(x + base + <usize>k * step) - shift));
      } else {
        for (let k = 0; k < len; k++)
          store<T>(y + base + <usize>k * step, <T>(<f64>load<T>(y + base + <usize>k * step) / s));
      }
    }
  }
}
