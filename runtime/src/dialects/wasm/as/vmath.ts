// Vector math for the wasm dialect (AssemblyScript): f32x4 exp, sigmoid, tanh, erf, softplus, log, sin and cos by range
// reduction and fitted or Taylor polynomials, and lane-wise fallbacks (each lane through the f64 function) for the rest.

import { madd } from './madd';

// exp(x) = 2^n · e^r with n = round(x·log2 e) and |r| ≤ ln2/2. ln 2 is split in two (Cody–Waite) so that n·LN2_HI
// is exact in f32 and the reduction loses no bits; e^r is then a degree-5 polynomial fitted to minimize the largest
// relative error on [-ln2/2, ln2/2] (coefficients fitted for this project by iteratively reweighted least squares):
// 9.2e-8 in exact arithmetic, 1.7e-7 evaluated in f32, under the degree-6 Taylor polynomial's 2.4e-7 it replaced.
const LOG2E: f32 = 1.44269504;
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.1219444e-4;
const P1: f32 = 0.99999970718;
const P2: f32 = 0.49999149523;
const P3: f32 = 0.16667636202;
const P4: f32 = 0.04189793026;
const P5: f32 = 0.00829031464;
// Past EXP_HI the result overflows f32; below EXP_LO it is under 2^-126 and flushes to 0 (no subnormal results).
const EXP_HI: f32 = 88.7228;
const EXP_LO: f32 = -87.3365;
/** 1.5 · 2^23, and its bits: a float in [2^23, 2^24) has unit spacing, so adding it rounds to an integer. */
const ROUNDER: f32 = 12582912.0;
const ROUNDER_BITS: i32 = 0x4b400000;

// V8 builds a v128 constant with several instructions at each use and does not hoist it out of loops, and binaryen
// folds splats of constants into such constants: the vector constants below are read from a static table instead,
// one load each (from L1), which the optimizer cannot fold back.
const F_EXP_HI = 0;
const F_EXP_LO = 1;
export const F_LOG2E = 2;
export const F_ROUNDER = 3;
export const F_LN2_HI = 4;
export const F_LN2_LO = 5;
export const F_P5 = 6;
export const F_P4 = 7;
export const F_P3 = 8;
export const F_P2 = 9;
export const F_P1 = 10;
export const F_ONE = 11;
const F_INF = 12;
const F_TWO = 13;
const I_ROUNDER_BITS = 14;
const I_BIAS = 15;
export const I_ROUNDER_UNBIAS = 16;
const I_SIGN = 17;
const I_ABS = 18;
const F_T3 = 19;
const F_T5 = 20;
const F_T7 = 21;
const F_T9 = 22;
const F_TANH_SMALL = 23;
export const F_EXP_FLUSH = 24;
export const F_Q1 = 25;
export const F_Q2 = 26;
export const F_Q3 = 27;
export const F_Q4 = 28;
export const F_E1 = 29;
export const F_E2 = 30;
export const F_E3 = 31;
export const F_E4 = 32;
const F_SQRT2 = 33;
const F_HALF = 34;
const F_L3 = 35;
const F_L5 = 36;
const F_L7 = 37;
const F_L9 = 38;
const F_MIN_NORMAL = 39;
const F_TWO23 = 40;
const I_MANT = 41;
const I_MINUS23 = 42;
const F_NEG_INF = 43;
const F_NAN = 44;
const F_ERF_ONE = 45;
const F_TWO_OVER_PI = 46;
const F_PIO2_1 = 47; // … F_PIO2_4 = 50
const F_SIN_S1 = 51; // … F_SIN_S4 = 54
const F_COS_C1 = 55; // … F_COS_C5 = 59
const F_TRIG_LIMIT = 60;
const TABLE: usize = memory.data<u32>(
  [
    // EXP_HI
    0x42b17213, 0x42b17213, 0x42b17213, 0x42b17213,
    // EXP_LO
    0xc2aeac4a, 0xc2aeac4a, 0xc2aeac4a, 0xc2aeac4a,
    // LOG2E
    0x3fb8aa3b, 0x3fb8aa3b, 0x3fb8aa3b, 0x3fb8aa3b,
    // ROUNDER
    0x4b400000, 0x4b400000, 0x4b400000, 0x4b400000,
    // LN2_HI
    0x3f318000, 0x3f318000, 0x3f318000, 0x3f318000,
    // LN2_LO
    0xb95e8083, 0xb95e8083, 0xb95e8083, 0xb95e8083,
    // P5
    0x3c07d41a, 0x3c07d41a, 0x3c07d41a, 0x3c07d41a,
    // P4
    0x3d2b9d2a, 0x3d2b9d2a, 0x3d2b9d2a, 0x3d2b9d2a,
    // P3
    0x3e2aad35, 0x3e2aad35, 0x3e2aad35, 0x3e2aad35,
    // P2
    0x3efffee3, 0x3efffee3, 0x3efffee3, 0x3efffee3,
    // P1
    0x3f7ffffb, 0x3f7ffffb, 0x3f7ffffb, 0x3f7ffffb,
    // 1
    0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000,
    // Infinity
    0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000,
    // 2
    0x40000000, 0x40000000, 0x40000000, 0x40000000,
    // ROUNDER_BITS
    0x4b400000, 0x4b400000, 0x4b400000, 0x4b400000,
    // 127
    0x0000007f, 0x0000007f, 0x0000007f, 0x0000007f,
    // ROUNDER_BITS - 127
    0x4b3fff81, 0x4b3fff81, 0x4b3fff81, 0x4b3fff81,
    // the sign bit, and all bits but it
    0x80000000, 0x80000000, 0x80000000, 0x80000000,
    0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff,
    // tanh's series: x^3, x^5, x^7, x^9 coefficients, and where it takes over
    // -1/3
    0xbeaaaaab, 0xbeaaaaab, 0xbeaaaaab, 0xbeaaaaab,
    // 2/15
    0x3e088889, 0x3e088889, 0x3e088889, 0x3e088889,
    // -17/315
    0xbd5d0dd1, 0xbd5d0dd1, 0xbd5d0dd1, 0xbd5d0dd1,
    // 62/2835
    0x3cb327a4, 0x3cb327a4, 0x3cb327a4, 0x3cb327a4,
    // 0.25
    0x3e800000, 0x3e800000, 0x3e800000, 0x3e800000,
    // -88: vexp_nonpos's clamp, where n = round(x·log2 e) = -127 and 2^n's exponent bits are 0 (see there)
    0xc2b00000, 0xc2b00000, 0xc2b00000, 0xc2b00000,
    // Q1..Q4: vexp2NearWith's polynomial for 2^(r/2), r in [-1/2, 1/2]
    0x3eb171fe, 0x3eb171fe, 0x3eb171fe, 0x3eb171fe,
    0x3d75fe23, 0x3d75fe23, 0x3d75fe23, 0x3d75fe23,
    0x3be3c3bb, 0x3be3c3bb, 0x3be3c3bb, 0x3be3c3bb,
    0x3a1d732d, 0x3a1d732d, 0x3a1d732d, 0x3a1d732d,
    // E1..E4: vexpFlushWith's polynomial for e^(r/2), |r| ≤ ln2/2 (Q1..Q4 over ln2^k, nudged likewise)
    0x3effffda, 0x3effffda, 0x3effffda, 0x3effffda,
    0x3e00001b, 0x3e00001b, 0x3e00001b, 0x3e00001b,
    0x3caafb55, 0x3caafb55, 0x3caafb55, 0x3caafb55,
    0x3b2a85a6, 0x3b2a85a6, 0x3b2a85a6, 0x3b2a85a6,
    // vlog_f32: √2, 1/2, the atanh series' 1/3, 1/5, 1/7, 1/9, 2^-126 (the least normal), 2^23, the mantissa bits, -23,
    // -Infinity and a quiet NaN
    0x3fb504f3, 0x3fb504f3, 0x3fb504f3, 0x3fb504f3,
    0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000,
    0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab,
    0x3e4ccccd, 0x3e4ccccd, 0x3e4ccccd, 0x3e4ccccd,
    0x3e124925, 0x3e124925, 0x3e124925, 0x3e124925,
    0x3de38e39, 0x3de38e39, 0x3de38e39, 0x3de38e39,
    0x00800000, 0x00800000, 0x00800000, 0x00800000,
    0x4b000000, 0x4b000000, 0x4b000000, 0x4b000000,
    0x007fffff, 0x007fffff, 0x007fffff, 0x007fffff,
    0xffffffe9, 0xffffffe9, 0xffffffe9, 0xffffffe9,
    0xff800000, 0xff800000, 0xff800000, 0xff800000,
    0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000,
    // verf_f32: 3.9192059, the least float32 whose erf rounds to 1
    0x407ad445, 0x407ad445, 0x407ad445, 0x407ad445,
    // sin, cos: 2/π; π/2 in four parts (the first three of at most 11 significant bits, so n times each is exact
    0x3f22f983, 0x3f22f983, 0x3f22f983, 0x3f22f983,
    // for |n| < 2^13); the Taylor coefficients of sin r (1/3! … 1/9!, signed) and of cos r (1/2! … 1/10!); 8192
    0x3fc90000, 0x3fc90000, 0x3fc90000, 0x3fc90000,
    0x39fda000, 0x39fda000, 0x39fda000, 0x39fda000,
    0x33a22000, 0x33a22000, 0x33a22000, 0x33a22000,
    0x2c34611a, 0x2c34611a, 0x2c34611a, 0x2c34611a,
    0xbe2aaaab, 0xbe2aaaab, 0xbe2aaaab, 0xbe2aaaab,
    0x3c088889, 0x3c088889, 0x3c088889, 0x3c088889,
    0xb9500d01, 0xb9500d01, 0xb9500d01, 0xb9500d01,
    0x3638ef1d, 0x3638ef1d, 0x3638ef1d, 0x3638ef1d,
    0xbf000000, 0xbf000000, 0xbf000000, 0xbf000000,
    0x3d2aaaab, 0x3d2aaaab, 0x3d2aaaab, 0x3d2aaaab,
    0xbab60b61, 0xbab60b61, 0xbab60b61, 0xbab60b61,
    0x37d00d01, 0x37d00d01, 0x37d00d01, 0x37d00d01,
    0xb493f27e, 0xb493f27e, 0xb493f27e, 0xb493f27e,
    0x46000000, 0x46000000, 0x46000000, 0x46000000,
  ],
  16,
);

/** The vector constant at table index i (the F_/I_ names above). */
@inline
export function K(i: i32): v128 {
  return v128.load(TABLE + ((<usize>i) << 4));
}

/** e^r for |r| ≤ ln2/2 by the fitted polynomial, in Horner form. */
@inline
function expPoly(r: v128): v128 {
  let p = madd(K(F_P5), r, K(F_P4));
  p = madd(p, r, K(F_P3));
  p = madd(p, r, K(F_P2));
  p = madd(p, r, K(F_P1));
  return madd(p, r, K(F_ONE));
}

// Inlined: a call per vector costs about as much as the polynomial itself.
@inline
export function vexp_f32(x: v128): v128 {
  // pmin/pmax are single instructions, unlike min/max with their NaN rules; a NaN x stays NaN through them.
  const c = f32x4.pmax(f32x4.pmin(x, K(F_EXP_HI)), K(F_EXP_LO));
  // Adding 1.5·2^23 rounds c·log2(e) to an integer n held in the low mantissa bits: n as a float and as bits at once.
  const t = madd(c, K(F_LOG2E), K(F_ROUNDER));
  const n = f32x4.sub(t, K(F_ROUNDER));
  let r = f32x4.sub(c, f32x4.mul(n, K(F_LN2_HI)));
  r = f32x4.sub(r, f32x4.mul(n, K(F_LN2_LO)));
  const p = expPoly(r);
  // 2^n as two factors built in exponent bits, 2^h · 2^(n-h) with h = n >> 1: n spans [-126, 128], beyond one normal
  // f32 exponent at both ends, while each half stays normal.
  const ni = i32x4.sub(t, K(I_ROUNDER_BITS));
  const h = i32x4.shr_s(ni, 1);
  const bias = K(I_BIAS);
  const s1 = i32x4.shl(i32x4.add(h, bias), 23);
  const s2 = i32x4.shl(i32x4.add(i32x4.sub(ni, h), bias), 23);
  const y = f32x4.mul(f32x4.mul(p, s1), s2);
  const high = v128.bitselect(K(F_INF), y, f32x4.gt(x, K(F_EXP_HI)));
  return v128.bitselect(f32x4.splat(0), high, f32x4.lt(x, K(F_EXP_LO)));
}

/**
 * exp(x) for x ≤ 0 (or NaN), as softmax needs after subtracting the row's maximum: nothing can overflow and
 * n = round(x·log2 e) stays in [-127, 0], so 2^n is one exponent field and the upper clamp and split go away. x is
 * clamped at -88, where n = -127: (n + 127) << 23 is then +0, so everything below about -87.98 comes out exactly 0
 * with no compare and select (between there and -87.34 the result is a correct subnormal). NaN stays NaN (pmax keeps
 * its first operand when the comparison fails) and -Infinity gives 0.
 */
@inline
export function vexp_nonpos_f32(x: v128): v128 {
  return vexpNonposWith(
    x,
    K(F_EXP_FLUSH),
    K(F_LOG2E),
    K(F_ROUNDER),
    K(F_LN2_HI),
    K(F_LN2_LO),
    K(I_ROUNDER_UNBIAS),
    K(F_P5),
    K(F_P4),
    K(F_P3),
    K(F_P2),
    K(F_P1),
    K(F_ONE),
  );
}

/**
 * vexp_nonpos_f32 with its constants as arguments (each `vexpConst(VEXP_NONPOS + i)`, in this order): a loop that
 * stores loads them once before it, since V8 reloads a table constant at every use inside such a loop (it cannot
 * tell the stores miss the table). About a third off softmax's exp pass when it used this.
 */
@inline
export function vexpNonposWith(
  x: v128,
  flush: v128,
  log2e: v128,
  rounder: v128,
  ln2Hi: v128,
  ln2Lo: v128,
  unbias: v128,
  p5: v128,
  p4: v128,
  p3: v128,
  p2: v128,
  p1: v128,
  one: v128,
): v128 {
  const c = f32x4.pmax(x, flush);
  const t = madd(c, log2e, rounder);
  const n = f32x4.sub(t, rounder);
  let r = f32x4.sub(c, f32x4.mul(n, ln2Hi));
  r = f32x4.sub(r, f32x4.mul(n, ln2Lo));
  // (n + 127) << 23: the bits of 2^n, n read from t's low mantissa bits; +0 at n = -127.
  const scale = i32x4.shl(i32x4.sub(t, unbias), 23);
  let p = madd(p5, r, p4);
  p = madd(p, r, p3);
  p = madd(p, r, p2);
  p = madd(p, r, p1);
  return f32x4.mul(madd(p, r, one), scale);
}

// Softmax's exp for rows that span little (as/softmax.ts), in base 2: y = d·log2 e, n = round(y), r = y - n (exact,
// |r| ≤ 1/2), and 2^r as the square of 2^(r/2), which a degree-4 polynomial gives to 8.5e-8 relative (fitted like the
// one above, by iteratively reweighted least squares, then its f32 coefficients nudged to the least error evaluated in
// f32). Against vexp_nonpos_f32 that drops the Cody–Waite steps (two multiplies, two subtractions) and one degree, and
// the chain from d to the result is about half as long; wasm SIMD (the plain build) has no FMA, and the loops these
// run in are bound by the adds and by that chain. The cost is relative accuracy: 4.1e-7 evaluated in f32 near d = 0 (the square
// doubles the polynomial's error), and y's rounding (half an ulp of y) and log2 e's add |d|·7.3e-8, so 1.6e-6 at
// d = -16, the farthest softmax lets it go.

/**
 * e^d for -87 ≤ d ≤ 0 or NaN (accurate as above for d ≥ -16; no -Infinity, which gives NaN). Nothing is clamped. NaN
 * stays NaN whatever its payload, as softmax needs for the row's sum. Its constants are arguments for the reason given
 * at vexpNonposWith: K(F_LOG2E), K(F_ROUNDER), K(F_Q4) … K(F_Q1), K(F_ONE).
 */
@inline
export function vexp2NearWith(
  d: v128,
  log2e: v128,
  rounder: v128,
  q4: v128,
  q3: v128,
  q2: v128,
  q1: v128,
  one: v128,
): v128 {
  const y = f32x4.mul(d, log2e);
  // n = round(y) sits in t's low mantissa bits, so t << 23 is n << 23 (t's own exponent and top bits shift out).
  const t = f32x4.add(y, rounder);
  // The same n as a float by f32x4.nearest (ties to even, as t's rounding), one step off the path to r that t - rounder
  // would add: r is on every exponential's critical path.
  const r = f32x4.sub(y, f32x4.nearest(y));
  // 2^(r/2) = (1 + q1 r) + r²((q2 + q3 r) + q4 r²).
  const r2 = f32x4.mul(r, r);
  const lo = madd(q1, r, one);
  const mid = madd(q3, r, q2);
  const h = madd(r2, madd(q4, r2, mid), lo);
  // (n << 23) + bits(1.0) = (n + 127) << 23: the bits of 2^n, normal for n ≥ -126.
  return f32x4.mul(f32x4.mul(h, h), i32x4.add(i32x4.shl(t, 23), one));
}

/**
 * e^d for d ≤ 0, -Infinity or NaN, for softmax rows that span more: vexp_nonpos_f32's clamp at -88 and Cody–Waite
 * reduction (so its error does not grow with |d|), with r = c - n·ln2 taken from n = nearest(y) as in vexp2NearWith,
 * and e^r as the square of a degree-4 polynomial for e^(r/2) (vexp2NearWith's, in r rather than r·log2 e): 4.4e-7
 * relative over the whole range (vexp_nonpos_f32: 1.8e-7). As many adds and one multiply more, but a dependency chain
 * about half as long, which is what bounds the loop: about a fifth off softmax's exp pass. Below about -87.98 the
 * result is exactly +0, -Infinity gives 0, NaN stays NaN. Its constants are arguments (see
 * vexpNonposWith): K(F_EXP_FLUSH), K(F_LOG2E), K(F_ROUNDER), K(F_LN2_HI), K(F_LN2_LO), K(F_E4) … K(F_E1), K(F_ONE).
 */
@inline
export function vexpFlushWith(
  d: v128,
  flush: v128,
  log2e: v128,
  rounder: v128,
  ln2Hi: v128,
  ln2Lo: v128,
  e4: v128,
  e3: v128,
  e2: v128,
  e1: v128,
  one: v128,
): v128 {
  const c = f32x4.pmax(d, flush);
  const y = f32x4.mul(c, log2e);
  const t = f32x4.add(y, rounder);
  const n = f32x4.nearest(y);
  const r = f32x4.sub(f32x4.sub(c, f32x4.mul(n, ln2Hi)), f32x4.mul(n, ln2Lo));
  const r2 = f32x4.mul(r, r);
  const lo = madd(e1, r, one);
  const mid = madd(e3, r, e2);
  const h = madd(r2, madd(e4, r2, mid), lo);
  // (n << 23) + bits(1.0) = (n + 127) << 23: the bits of 2^n, +0 at n = -127 (the clamp's floor).
  return f32x4.mul(f32x4.mul(h, h), i32x4.add(i32x4.shl(t, 23), one));
}

/**
 * 1 / (1 + e^-x), from e = e^-|x| ≤ 1 so that exp cannot overflow: 1 / (1 + e) for x ≥ 0 and e / (1 + e) below.
 * NaN stays NaN; ±Infinity give exactly 1 and 0.
 */
@inline
export function vsigmoid_f32(x: v128): v128 {
  return vsigmoidWith_f32(
    x,
    K(F_EXP_FLUSH),
    K(F_LOG2E),
    K(F_ROUNDER),
    K(F_LN2_HI),
    K(F_LN2_LO),
    K(I_ROUNDER_UNBIAS),
    K(F_P5),
    K(F_P4),
    K(F_P3),
    K(F_P2),
    K(F_P1),
    K(F_ONE),
    K(I_SIGN),
  );
}

// vsigmoid_f32's constants in vsigmoidWith_f32's order: what the generated loops load once before they start.
const SIGMOID_K: usize = memory.data<i32>([
  F_EXP_FLUSH, F_LOG2E, F_ROUNDER, F_LN2_HI, F_LN2_LO, I_ROUNDER_UNBIAS, F_P5, F_P4, F_P3, F_P2, F_P1, F_ONE, I_SIGN,
]);

/** Constant i (0–12) of vsigmoidWith_f32, after x. */
export function vsigmoidK_f32(i: i32): v128 {
  return K(load<i32>(SIGMOID_K + (<usize>i << 2)));
}

/**
 * vsigmoid_f32 with its 13 constants as arguments (each `vsigmoidK_f32(i)`): the generated elementwise loops load them
 * before the loop (see vexpNonposWith for why), about 14% off sigmoid over 2^20 elements.
 */
@inline
export function vsigmoidWith_f32(
  x: v128,
  flush: v128,
  log2e: v128,
  rounder: v128,
  ln2Hi: v128,
  ln2Lo: v128,
  unbias: v128,
  p5: v128,
  p4: v128,
  p3: v128,
  p2: v128,
  p1: v128,
  one: v128,
  sign: v128,
): v128 {
  const e = vexpNonposWith(v128.or(x, sign), flush, log2e, rounder, ln2Hi, ln2Lo, unbias, p5, p4, p3, p2, p1, one);
  return f32x4.div(v128.bitselect(one, e, f32x4.ge(x, f32x4.splat(0))), f32x4.add(one, e));
}

/**
 * tanh(x) = sign(x) · (1 - e) / (1 + e) with e = e^{-2|x|} ≤ 1: saturates to ±1 without overflow; keeps -0. Below
 * |x| = 1/4, where 1 - e would cancel, the odd Taylor series to x^9 (truncation under 1e-8 relative) instead.
 */
@inline
export function vtanh_f32(x: v128): v128 {
  const one = K(F_ONE);
  const a = v128.and(x, K(I_ABS));
  const e = vexp_nonpos_f32(f32x4.neg(f32x4.add(a, a)));
  const far = f32x4.div(f32x4.sub(one, e), f32x4.add(one, e));
  const a2 = f32x4.mul(a, a);
  let p = madd(K(F_T9), a2, K(F_T7));
  p = madd(p, a2, K(F_T5));
  p = madd(p, a2, K(F_T3));
  const near = madd(f32x4.mul(a, a2), p, a);
  // Both forms are of |x|, ≥ 0: x's sign bit goes on last (so -0 stays -0, and NaN stays NaN).
  return v128.or(v128.bitselect(near, far, f32x4.lt(a, K(F_TANH_SMALL))), v128.and(x, K(I_SIGN)));
}

// verf_f32's coefficients: erf(x)/x ≈ P(x²)/Q(x²) with Q0 = 1, as float32 bits.
const ERF_P0: f32 = reinterpret<f32>(0x3f906eba);
const ERF_P1: f32 = reinterpret<f32>(0x3e42f27b);
const ERF_P2: f32 = reinterpret<f32>(0x3d580bc2);
const ERF_P3: f32 = reinterpret<f32>(0x3b76b6d8);
const ERF_P4: f32 = reinterpret<f32>(0x39955ceb);
const ERF_P5: f32 = reinterpret<f32>(0x36099e86);
const ERF_Q1: f32 = reinterpret<f32>(0x3f008669);
const ERF_Q2: f32 = reinterpret<f32>(0x3de9ac30);
const ERF_Q3: f32 = reinterpret<f32>(0x3c753886);
const ERF_Q4: f32 = reinterpret<f32>(0x3a98595c);
const ERF_Q5: f32 = reinterpret<f32>(0x381fcb8e);

/** c0 + c1·v + … + c5·v⁵, in Horner form. */
@inline
function poly5(v: v128, c5: f32, c4: f32, c3: f32, c2: f32, c1: f32, c0: f32): v128 {
  let p = madd(f32x4.splat(c5), v, f32x4.splat(c4));
  p = madd(p, v, f32x4.splat(c3));
  p = madd(p, v, f32x4.splat(c2));
  p = madd(p, v, f32x4.splat(c1));
  return madd(p, v, f32x4.splat(c0));
}

/**
 * erf(x) on f32 lanes, within 3.5e-7 relative, 3.1e-7 where madd fuses (measured at 200,001 points over [0, 3.92]
 * against mpmath; the f32 rounding of the two polynomials dominates, about 3 ulps next to 1): x·P(x²)/Q(x²), one
 * rational function of degree 5 over degree 5 for the whole range, fitted for this project (linearized least squares on
 * relative error, then reweighted toward the largest errors, against mpmath's erf): 1.9e-8 relative in exact arithmetic
 * on |x| ≤ 3.9192059, the least float32 whose erf rounds to 1. From there on each lane is exactly ±1. Ten multiply-adds
 * and one division for every lane, where the two degree-9 polynomials it replaced (one for |x| < 2, one for erfc
 * beyond, both computed and each lane picking its own) took eighteen and their selection: erf and gelu over 2^20 run in
 * 0.51–0.63 of the time on either build (A/B in one process), for half the accuracy (1.7e-7 before), still within the
 * 4e-7 the other vector functions here meet. ±0 keeps its sign, ±Infinity gives ±1, NaN stays NaN.
 */
@inline
export function verf_f32(x: v128): v128 {
  const t = f32x4.mul(x, x);
  // erf(x)/x ≈ P(x²)/Q(x²), Q0 = 1. The coefficients are splat constants, not table loads (K): erf over 2^20 took
  // 0.94–0.95 of the time so and gelu 0.96 (A/B in one process, either build, the same bits).
  const q = poly5(t, ERF_Q5, ERF_Q4, ERF_Q3, ERF_Q2, ERF_Q1, 1);
  const p = poly5(t, ERF_P5, ERF_P4, ERF_P3, ERF_P2, ERF_P1, ERF_P0);
  const r = f32x4.div(f32x4.mul(x, p), q);
  const ax = v128.and(x, K(I_ABS));
  // From the bound on, P/Q may be Infinity/Infinity = NaN: those lanes take ±1. A NaN x fails the compare, stays NaN.
  return v128.bitselect(v128.or(K(F_ONE), v128.and(x, K(I_SIGN))), r, f32x4.ge(ax, K(F_ERF_ONE)));
}

export function vsign_f32(x: v128): v128 {
  const one = f32x4.splat(1.0);
  const pos = v128.and(f32x4.gt(x, f32x4.splat(0)), one);
  const neg = v128.and(f32x4.lt(x, f32x4.splat(0)), one);
  // NaN lanes compare false both ways; pass them through as NaN.
  return v128.bitselect(f32x4.sub(pos, neg), x, f32x4.eq(x, x));
}

export function vsign_f64(x: v128): v128 {
  const one = f64x2.splat(1.0);
  const pos = v128.and(f64x2.gt(x, f64x2.splat(0)), one);
  const neg = v128.and(f64x2.lt(x, f64x2.splat(0)), one);
  return v128.bitselect(f64x2.sub(pos, neg), x, f64x2.eq(x, x));
}

// ---------------------------------------------------------------- scalar functions, in f64

const TWO_OVER_SQRT_PI = 1.1283791670955126;
const ONE_OVER_SQRT_PI = 0.5641895835477563;

/** erf from the positive-term series below 2.5 and the Laplace continued fraction for erfc above (as the CPU dialect). */
export function erf64(x: f64): f64 {
  const a = Math.abs(x);
  if (a < 2.5) {
    const a2 = a * a;
    let term = a;
    let sum = a;
    for (let n = 0; n < 60; n++) {
      term *= (2 * a2) / <f64>(2 * n + 3);
      const next = sum + term;
      if (next == sum) break;
      sum = next;
    }
    const v = TWO_OVER_SQRT_PI * Math.exp(-a2) * sum;
    return x < 0 ? -v : v;
  }
  if (isNaN(x)) return x;
  let erfc: f64 = 0;
  if (a <= 27) {
    let denominator = a;
    for (let k = 40; k >= 1; k--) denominator = a + <f64>k / 2 / denominator;
    erfc = (ONE_OVER_SQRT_PI * Math.exp(-a * a)) / denominator;
  }
  return x < 0 ? erfc - 1 : 1 - erfc;
}

export function sigmoid64(x: f64): f64 {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

export function softplus64(x: f64): f64 {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

function exp64(x: f64): f64 {
  return Math.exp(x);
}
function log64(x: f64): f64 {
  return Math.log(x);
}
function sin64(x: f64): f64 {
  return Math.sin(x);
}
function cos64(x: f64): f64 {
  return Math.cos(x);
}
function tan64(x: f64): f64 {
  return Math.tan(x);
}
function tanh64(x: f64): f64 {
  return Math.tanh(x);
}
function log1p64(x: f64): f64 {
  return Math.log1p(x);
}
function expm164(x: f64): f64 {
  return Math.expm1(x);
}
function pow64(x: f64, y: f64): f64 {
  return Math.pow(x, y);
}

// ---------------------------------------------------------------- lane-wise application

// The scalar function runs in f64 for both widths: f32 lanes widen, compute, and round once, which is what the
// CPU dialect does too (its kernels compute in JavaScript doubles).
function lanes1_f32(v: v128, f: (x: f64) => f64): v128 {
  let r = v;
  r = f32x4.replace_lane(r, 0, <f32>f(<f64>f32x4.extract_lane(v, 0)));
  r = f32x4.replace_lane(r, 1, <f32>f(<f64>f32x4.extract_lane(v, 1)));
  r = f32x4.replace_lane(r, 2, <f32>f(<f64>f32x4.extract_lane(v, 2)));
  r = f32x4.replace_lane(r, 3, <f32>f(<f64>f32x4.extract_lane(v, 3)));
  return r;
}

function lanes1_f64(v: v128, f: (x: f64) => f64): v128 {
  let r = f64x2.replace_lane(v, 0, f(f64x2.extract_lane(v, 0)));
  return f64x2.replace_lane(r, 1, f(f64x2.extract_lane(v, 1)));
}

function lanes2_f32(a: v128, b: v128, f: (x: f64, y: f64) => f64): v128 {
  let r = a;
  r = f32x4.replace_lane(r, 0, <f32>f(<f64>f32x4.extract_lane(a, 0), <f64>f32x4.extract_lane(b, 0)));
  r = f32x4.replace_lane(r, 1, <f32>f(<f64>f32x4.extract_lane(a, 1), <f64>f32x4.extract_lane(b, 1)));
  r = f32x4.replace_lane(r, 2, <f32>f(<f64>f32x4.extract_lane(a, 2), <f64>f32x4.extract_lane(b, 2)));
  r = f32x4.replace_lane(r, 3, <f32>f(<f64>f32x4.extract_lane(a, 3), <f64>f32x4.extract_lane(b, 3)));
  return r;
}

function lanes2_f64(a: v128, b: v128, f: (x: f64, y: f64) => f64): v128 {
  let r = f64x2.replace_lane(a, 0, f(f64x2.extract_lane(a, 0), f64x2.extract_lane(b, 0)));
  return f64x2.replace_lane(r, 1, f(f64x2.extract_lane(a, 1), f64x2.extract_lane(b, 1)));
}

/**
 * ln x on f32 lanes: x = 2^e · m with m in [√½, √2), and ln m = 2·atanh(s) = 2(s + s³/3 + s⁵/5 + s⁷/7 + s⁹/9) for
 * s = (m − 1)/(m + 1), |s| ≤ 0.172, where the first term left out (2s¹¹/11) is under 3e-9 of the sum. e·ln 2 is added
 * in two parts (LN2_HI times any exponent is exact). A subnormal x is scaled by 2^23 first. ln ±0 = −∞, ln ∞ = ∞, and
 * a negative x or NaN gives NaN.
 */
@inline
export function vlog_f32(x: v128): v128 {
  const zero = f32x4.splat(0);
  const one = K(F_ONE);
  const tiny = f32x4.lt(x, K(F_MIN_NORMAL));
  const xs = v128.bitselect(f32x4.mul(x, K(F_TWO23)), x, tiny);
  // The exponent field less the bias (less 23 more where scaled), and the mantissa as a float in [1, 2).
  let e = i32x4.add(i32x4.sub(i32x4.shr_u(xs, 23), K(I_BIAS)), v128.and(tiny, K(I_MINUS23)));
  let m = v128.or(v128.and(xs, K(I_MANT)), one);
  // Past √2, halve m and count one more in e (the mask is -1 on those lanes).
  const big = f32x4.gt(m, K(F_SQRT2));
  m = v128.bitselect(f32x4.mul(m, K(F_HALF)), m, big);
  e = i32x4.sub(e, big);
  const s = f32x4.div(f32x4.sub(m, one), f32x4.add(m, one));
  const s2 = f32x4.mul(s, s);
  let p = madd(K(F_L9), s2, K(F_L7));
  p = madd(p, s2, K(F_L5));
  p = madd(p, s2, K(F_L3));
  const twoS = f32x4.add(s, s);
  const lnM = madd(twoS, f32x4.mul(s2, p), twoS);
  const ef = f32x4.convert_i32x4_s(e);
  let r = madd(ef, K(F_LN2_HI), madd(ef, K(F_LN2_LO), lnM));
  r = v128.bitselect(K(F_NEG_INF), r, f32x4.eq(x, zero));
  r = v128.bitselect(K(F_NAN), r, f32x4.lt(x, zero));
  // NaN and +∞ come out as they went in.
  return v128.bitselect(x, r, v128.or(f32x4.ne(x, x), f32x4.eq(x, K(F_INF))));
}
// sin and cos of f32 lanes with |x| ≤ 8192: n = round(x·2/π), r = x − n·π/2 by the four-part π/2 above (each of the
// first three products exact, so r carries π/2 to 57 bits: an absolute error under 4e-14 even at n = 5215), |r| ≤ π/4,
// where the Taylor polynomials of sin r (to r^9) and cos r (to r^10) are within 1e-9 relative; the quadrant n mod 4
// then picks ±sin r or ±cos r. A vector with any lane beyond 8192, infinite or NaN goes lane by lane through f64.

/** sin r for |r| ≤ π/4 (r2 = r²), r + r³·S(r²). */
@inline
function sinPoly(r: v128, r2: v128): v128 {
  let s = madd(K(F_SIN_S1 + 3), r2, K(F_SIN_S1 + 2));
  s = madd(s, r2, K(F_SIN_S1 + 1));
  s = madd(s, r2, K(F_SIN_S1));
  return madd(f32x4.mul(r, r2), s, r);
}

/** cos r for |r| ≤ π/4 from r2 = r², 1 + r²·C(r²). */
@inline
function cosPoly(r2: v128): v128 {
  let c = madd(K(F_COS_C1 + 4), r2, K(F_COS_C1 + 3));
  c = madd(c, r2, K(F_COS_C1 + 2));
  c = madd(c, r2, K(F_COS_C1 + 1));
  c = madd(c, r2, K(F_COS_C1));
  return madd(r2, c, K(F_ONE));
}

/** n = round(x·2/π), as a float. */
@inline
function quadrantOf(x: v128): v128 {
  return f32x4.nearest(f32x4.mul(x, K(F_TWO_OVER_PI)));
}

/** r = x − n·π/2, from the four parts of π/2. */
@inline
function reduceBy(x: v128, n: v128): v128 {
  let r = f32x4.sub(x, f32x4.mul(n, K(F_PIO2_1)));
  r = f32x4.sub(r, f32x4.mul(n, K(F_PIO2_1 + 1)));
  r = f32x4.sub(r, f32x4.mul(n, K(F_PIO2_1 + 2)));
  return f32x4.sub(r, f32x4.mul(n, K(F_PIO2_1 + 3)));
}

/** Whether every lane is within the reduction's range (NaN is not). */
@inline
function trigInRange(x: v128): bool {
  return i32x4.all_true(f32x4.le(v128.and(x, K(I_ABS)), K(F_TRIG_LIMIT)));
}

/** sin(x): quadrant q gives sin r, cos r, −sin r, −cos r; ±0 stays ±0. */
@inline
export function vsin_f32(x: v128): v128 {
  if (!trigInRange(x)) return lanes1_f32(x, sin64);
  const n = quadrantOf(x);
  const r = reduceBy(x, n);
  const r2 = f32x4.mul(r, r);
  const q = i32x4.trunc_sat_f32x4_s(n);
  const v = v128.bitselect(cosPoly(r2), sinPoly(r, r2), i32x4.shr_s(i32x4.shl(q, 31), 31));
  // Bit 1 of q, moved to the sign bit, negates the second half of the turn.
  const y = v128.xor(v, i32x4.shl(i32x4.shr_u(q, 1), 31));
  return v128.bitselect(x, y, f32x4.eq(x, f32x4.splat(0)));
}

/** cos(x) = sin(x + π/2): the same with the quadrant one further on. */
@inline
export function vcos_f32(x: v128): v128 {
  if (!trigInRange(x)) return lanes1_f32(x, cos64);
  const n = quadrantOf(x);
  const r = reduceBy(x, n);
  const r2 = f32x4.mul(r, r);
  const q = i32x4.add(i32x4.trunc_sat_f32x4_s(n), i32x4.splat(1));
  const v = v128.bitselect(cosPoly(r2), sinPoly(r, r2), i32x4.shr_s(i32x4.shl(q, 31), 31));
  return v128.xor(v, i32x4.shl(i32x4.shr_u(q, 1), 31));
}

export function vtan_f32(v: v128): v128 {
  return lanes1_f32(v, tan64);
}
export function vlog1p_f32(v: v128): v128 {
  return lanes1_f32(v, log1p64);
}
export function vexpm1_f32(v: v128): v128 {
  return lanes1_f32(v, expm164);
}
/**
 * softplus(x) = max(x, 0) + ln(1 + e) on f32 lanes, e = e^(−|x|) ≤ 1 so nothing overflows; ln(1 + e) by Goldberg's form
 * ln(u)·e/(u − 1) for u = 1 + e, where u − 1 is exact and the quotient undoes the rounding made in forming u
 * (where u rounds to 1, e itself, within half an ulp). Far below 0 that is e itself, to e's own accuracy; +Infinity
 * gives +Infinity, -Infinity 0, NaN NaN. (The lane-by-lane f64 softplus it replaced took 17 ms over 2^20.)
 */
@inline
export function vsoftplus_f32(x: v128): v128 {
  const one = K(F_ONE);
  const e = vexp_nonpos_f32(v128.or(x, K(I_SIGN)));
  const u = f32x4.add(one, e);
  const lp = v128.bitselect(e, f32x4.mul(vlog_f32(u), f32x4.div(e, f32x4.sub(u, one))), f32x4.eq(u, one));
  return f32x4.add(f32x4.max(x, f32x4.splat(0)), lp);
}
/**
 * pow lane by lane through the f64 pow, except where every exponent is 2 (a power spectrum): a·a then, the same
 * correctly rounded square (a² is exact in f64, so pow64's result rounds to it too), NaN and ±∞ alike.
 */
export function vpow_f32(a: v128, b: v128): v128 {
  if (i32x4.all_true(f32x4.eq(b, K(F_TWO)))) return f32x4.mul(a, a);
  return lanes2_f32(a, b, pow64);
}

export function vexp_f64(v: v128): v128 {
  return lanes1_f64(v, exp64);
}
export function vlog_f64(v: v128): v128 {
  return lanes1_f64(v, log64);
}
export function vsin_f64(v: v128): v128 {
  return lanes1_f64(v, sin64);
}
export function vcos_f64(v: v128): v128 {
  return lanes1_f64(v, cos64);
}
export function vtan_f64(v: v128): v128 {
  return lanes1_f64(v, tan64);
}
export function vtanh_f64(v: v128): v128 {
  return lanes1_f64(v, tanh64);
}
export function vsigmoid_f64(v: v128): v128 {
  return lanes1_f64(v, sigmoid64);
}
export function verf_f64(v: v128): v128 {
  return lanes1_f64(v, erf64);
}
export function vlog1p_f64(v: v128): v128 {
  return lanes1_f64(v, log1p64);
}
export function vexpm1_f64(v: v128): v128 {
  return lanes1_f64(v, expm164);
}
export function vsoftplus_f64(v: v128): v128 {
  return lanes1_f64(v, softplus64);
}
export function vpow_f64(a: v128, b: v128): v128 {
  return lanes2_f64(a, b, pow64);
}
