// Softmax and log-softmax for the wasm dialect (AssemblyScript): SIMD rows in f32, a strided scalar path otherwise.

import {
  F_EXP_FLUSH,
  F_LN2_HI,
  F_LN2_LO,
  F_LOG2E,
  F_ONE,
  F_P1,
  F_P2,
  F_P3,
  F_P4,
  F_P5,
  F_ROUNDER,
  I_ROUNDER_UNBIAS,
  K,
  vexpNonposWith,
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
  const row = (<usize>len) << 2;
  for (let o = 0; o < outer; o++) softmaxRow_f32(x + <usize>o * row, y + <usize>o * row, len, log);
}

export function softmax_f64(x: usize, y: usize, outer: i32, len: i32, inner: i32, log: bool): void {
  softmaxStrided<f64>(x, y, outer, len, inner, log);
}

function softmaxRow_f32(x: usize, y: usize, len: i32, log: bool): void {
  const vecEnd = (<usize>(len & ~3)) << 2;
  const end = (<usize>len) << 2;
  const m = rowMax_f32(x, len);
  // log: the sum only; else the exponentials go to y as well, to be scaled there.
  const sv = expPass_f32(x, y, vecEnd, f32x4.splat(m), !log);
  let s =
    <f64>f32x4.extract_lane(sv, 0) +
    <f64>f32x4.extract_lane(sv, 1) +
    <f64>f32x4.extract_lane(sv, 2) +
    <f64>f32x4.extract_lane(sv, 3);
  for (let j = vecEnd; j < end; j += 4) {
    const e = Math.exp(<f64>load<f32>(x + j) - <f64>m);
    if (!log) store<f32>(y + j, <f32>e);
    s += e;
  }
  if (log) {
    const shift = f32x4.splat(<f32>(<f64>m + Math.log(s)));
    for (let j: usize = 0; j < vecEnd; j += 16) v128.store(y + j, f32x4.sub(v128.load(x + j), shift));
    const shiftScalar = f32x4.extract_lane(shift, 0);
    for (let j = vecEnd; j < end; j += 4) store<f32>(y + j, load<f32>(x + j) - shiftScalar);
  } else {
    const inv = f32x4.splat(<f32>(1 / s));
    for (let j: usize = 0; j < vecEnd; j += 16) v128.store(y + j, f32x4.mul(v128.load(y + j), inv));
    const invScalar = f32x4.extract_lane(inv, 0);
    for (let j = vecEnd; j < end; j += 4) store<f32>(y + j, load<f32>(y + j) * invScalar);
  }
}

/**
 * The row's maximum, by pmax (one instruction, where f32x4.max's NaN rules take several) in four accumulators (16
 * lanes a step), so neither the instruction count nor the max chain's latency bounds the pass. pmax may skip a NaN
 * lane: softmax needs no NaN from here, since exp(NaN - m) makes the row's sum, and so the whole row, NaN anyway.
 */
function rowMax_f32(x: usize, len: i32): f32 {
  const vecEnd = (<usize>(len & ~3)) << 2;
  const end = (<usize>len) << 2;
  const wideEnd = (<usize>(len & ~15)) << 2;
  let m0 = f32x4.splat(-Infinity);
  let m1 = m0;
  let m2 = m0;
  let m3 = m0;
  let j: usize = 0;
  for (; j < wideEnd; j += 64) {
    m0 = f32x4.pmax(m0, v128.load(x + j));
    m1 = f32x4.pmax(m1, v128.load(x + j, 16));
    m2 = f32x4.pmax(m2, v128.load(x + j, 32));
    m3 = f32x4.pmax(m3, v128.load(x + j, 48));
  }
  for (; j < vecEnd; j += 16) m0 = f32x4.pmax(m0, v128.load(x + j));
  const mv = f32x4.pmax(f32x4.pmax(m0, m1), f32x4.pmax(m2, m3));
  let m = Mathf.max(
    Mathf.max(f32x4.extract_lane(mv, 0), f32x4.extract_lane(mv, 1)),
    Mathf.max(f32x4.extract_lane(mv, 2), f32x4.extract_lane(mv, 3)),
  );
  for (let i = vecEnd; i < end; i += 4) m = Mathf.max(m, load<f32>(x + i));
  return m;
}

/**
 * e^(x - m) over the row's whole vectors (bytes [0, vecEnd)), summed in two accumulators (half the add latency
 * chain), and stored to y when `write`. The exp's constants are loaded once here, before the loops: see
 * vexpNonposWith.
 */
function expPass_f32(x: usize, y: usize, vecEnd: usize, mvec: v128, write: bool): v128 {
  const flush = K(F_EXP_FLUSH);
  const log2e = K(F_LOG2E);
  const rounder = K(F_ROUNDER);
  const ln2Hi = K(F_LN2_HI);
  const ln2Lo = K(F_LN2_LO);
  const unbias = K(I_ROUNDER_UNBIAS);
  const p5 = K(F_P5);
  const p4 = K(F_P4);
  const p3 = K(F_P3);
  const p2 = K(F_P2);
  const p1 = K(F_P1);
  const one = K(F_ONE);
  let s0 = f32x4.splat(0);
  let s1 = f32x4.splat(0);
  let i: usize = 0;
  if (write) {
    for (; i + 32 <= vecEnd; i += 32) {
      const d0 = f32x4.sub(v128.load(x + i), mvec);
      const d1 = f32x4.sub(v128.load(x + i, 16), mvec);
      const e0 = vexpNonposWith(d0, flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one);
      const e1 = vexpNonposWith(d1, flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one);
      v128.store(y + i, e0);
      v128.store(y + i, e1, 16);
      s0 = f32x4.add(s0, e0);
      s1 = f32x4.add(s1, e1);
    }
    for (; i < vecEnd; i += 16) {
      const d = f32x4.sub(v128.load(x + i), mvec);
      const e = vexpNonposWith(d, flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one);
      v128.store(y + i, e);
      s0 = f32x4.add(s0, e);
    }
  } else {
    for (; i + 32 <= vecEnd; i += 32) {
      const d0 = f32x4.sub(v128.load(x + i), mvec);
      const d1 = f32x4.sub(v128.load(x + i, 16), mvec);
      s0 = f32x4.add(s0, vexpNonposWith(d0, flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one));
      s1 = f32x4.add(s1, vexpNonposWith(d1, flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one));
    }
    for (; i < vecEnd; i += 16) {
      const d = f32x4.sub(v128.load(x + i), mvec);
      s0 = f32x4.add(s0, vexpNonposWith(d, flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one));
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
