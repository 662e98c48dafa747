// Bias and activation epilogues for the wasm dialect (AssemblyScript): applied in place to a convolution's or matrix
// product's output right after its kernel, so `conv2d + bias + activation` after fuseOps is one launch with no
// JavaScript loop over the output.

import { vsigmoid_f32 } from './vmath';

// Activation codes; the JavaScript side (runtime/src/graph/fused-cpu.ts) uses the same numbers.
const NONE = 0;
const RELU = 1;
const LEAKY_RELU = 2;
const CLIP = 3;
const HARD_SIGMOID = 4;
const HARDSWISH = 5;
const SIGMOID = 6;
const MAX = 7;
const MIN = 8;

function act4(v: v128, act: i32, a: v128, b: v128): v128 {
  const zero = f32x4.splat(0);
  if (act == RELU) return f32x4.max(v, zero);
  if (act == LEAKY_RELU) return v128.bitselect(v, f32x4.mul(v, a), f32x4.gt(v, zero));
  if (act == CLIP) return f32x4.min(f32x4.max(v, a), b);
  if (act == HARD_SIGMOID) return hardSigmoid4(v, a, b);
  if (act == HARDSWISH) return hardswish4(v);
  if (act == SIGMOID) return vsigmoid_f32(v);
  if (act == MAX) return f32x4.max(v, a);
  if (act == MIN) return f32x4.min(v, a);
  return v;
}

/**
 * x · clip(x + 3, 0, 6) / 6, the division a multiplication by 1/6 (a vector divide costs several multiplies). The
 * clip is pmax(t, 0) = t < 0 ? 0 : t and pmin(u, 6) = 6 < u ? 6 : u, one instruction each where f32x4.max/min take
 * several: a NaN t fails both tests and stays NaN, as with max/min.
 */
function hardswish4(v: v128): v128 {
  const c = f32x4.pmin(f32x4.pmax(f32x4.add(v, f32x4.splat(3)), f32x4.splat(0)), f32x4.splat(6));
  return f32x4.mul(f32x4.mul(v, c), f32x4.splat(<f32>(1.0 / 6.0)));
}

/** clip(x·a + b, 0, 1), clipped by pmax/pmin as hardswish4 (a NaN stays NaN). */
function hardSigmoid4(v: v128, a: v128, b: v128): v128 {
  return f32x4.pmin(f32x4.pmax(f32x4.add(f32x4.mul(v, a), b), f32x4.splat(0)), f32x4.splat(1));
}

function act1(v: f32, act: i32, a: f32, b: f32): f32 {
  return f32x4.extract_lane(act4(f32x4.splat(v), act, f32x4.splat(a), f32x4.splat(b)), 0);
}

/**
 * p[i] = act(p[i] + c) for the n whole vectors at p, one loop per activation: testing `act` per vector (act4) costs
 * more than the math of most activations. Where the parameters allow, the bounds are pmax/pmin (one instruction each,
 * where f32x4.max/min take several to order signed zeros and NaNs): pmax(v, a) = v < a ? a : v keeps a NaN v, as max
 * does, when a is not NaN; leaky_relu is pmax(v·α, v) for 0 ≤ α ≤ 1. Only the sign of a zero result may differ.
 */
function actVectors(p: usize, n: i32, c: v128, act: i32, a: v128, b: v128): void {
  const end = p + ((<usize>n) << 4);
  const zero = f32x4.splat(0);
  const sa = f32x4.extract_lane(a, 0);
  const sb = f32x4.extract_lane(b, 0);
  switch (act) {
    case NONE:
      for (let q = p; q < end; q += 16) v128.store(q, f32x4.add(v128.load(q), c));
      break;
    case RELU:
      for (let q = p; q < end; q += 16) v128.store(q, f32x4.pmax(f32x4.add(v128.load(q), c), zero));
      break;
    case LEAKY_RELU:
      if (sa >= 0 && sa <= 1)
        for (let q = p; q < end; q += 16) {
          const v = f32x4.add(v128.load(q), c);
          v128.store(q, f32x4.pmax(f32x4.mul(v, a), v));
        }
      else
        for (let q = p; q < end; q += 16) {
          const v = f32x4.add(v128.load(q), c);
          v128.store(q, v128.bitselect(v, f32x4.mul(v, a), f32x4.gt(v, zero)));
        }
      break;
    case CLIP:
      if (sa == sa && sb == sb)
        for (let q = p; q < end; q += 16) v128.store(q, f32x4.pmin(f32x4.pmax(f32x4.add(v128.load(q), c), a), b));
      else for (let q = p; q < end; q += 16) v128.store(q, f32x4.min(f32x4.max(f32x4.add(v128.load(q), c), a), b));
      break;
    case HARD_SIGMOID:
      for (let q = p; q < end; q += 16) v128.store(q, hardSigmoid4(f32x4.add(v128.load(q), c), a, b));
      break;
    case HARDSWISH: {
      // hardswish4 written out: the loop keeps its constants in registers.
      const three = f32x4.splat(3);
      const six = f32x4.splat(6);
      const sixth = f32x4.splat(<f32>(1.0 / 6.0));
      for (let q = p; q < end; q += 16) {
        const v = f32x4.add(v128.load(q), c);
        const k = f32x4.pmin(f32x4.pmax(f32x4.add(v, three), zero), six);
        v128.store(q, f32x4.mul(f32x4.mul(v, k), sixth));
      }
      break;
    }
    case MAX:
      if (sa == sa) for (let q = p; q < end; q += 16) v128.store(q, f32x4.pmax(f32x4.add(v128.load(q), c), a));
      else for (let q = p; q < end; q += 16) v128.store(q, f32x4.max(f32x4.add(v128.load(q), c), a));
      break;
    case MIN:
      if (sa == sa) for (let q = p; q < end; q += 16) v128.store(q, f32x4.pmin(f32x4.add(v128.load(q), c), a));
      else for (let q = p; q < end; q += 16) v128.store(q, f32x4.min(f32x4.add(v128.load(q), c), a));
      break;
    default:
      for (let q = p; q < end; q += 16) v128.store(q, act4(f32x4.add(v128.load(q), c), act, a, b));
  }
}

/**
 * y[r, i] = act(y[r, i] + bias[r % channels]) over rows·plane elements (NCHW: a row is one channel of one image); no
 * bias when `bias` is 0. `a`, `b` are the activation's parameters (alpha; min and max; alpha and beta; the bound of
 * max and min); a second activation `act2` with parameter `a2` follows (0: none), as leaky_relu then max(·, c): a
 * second pass over the row, still in cache. Last, y · scale + shift (a learnable affine after the activation, as
 * PP-LCNet's): a third pass when scale ≠ 1 or shift ≠ 0, the product and the sum each rounded as two ops would.
 */
export function bias_act_planes_f32(
  y: usize,
  bias: usize,
  rows: i32,
  channels: i32,
  plane: i32,
  act: i32,
  a: f32,
  b: f32,
  act2: i32,
  a2: f32,
  scale: f32,
  shift: f32,
): void {
  const av = f32x4.splat(a);
  const bv = f32x4.splat(b);
  const a2v = f32x4.splat(a2);
  const zero = f32x4.splat(0);
  const vec = plane & ~3;
  const affine = scale != 1 || shift != 0;
  for (let r = 0; r < rows; r++) {
    const p = y + <usize>r * <usize>plane * 4;
    const c: f32 = bias ? load<f32>(bias + <usize>(r % channels) * 4) : 0;
    actVectors(p, vec >> 2, f32x4.splat(c), act, av, bv);
    if (act2 != NONE) actVectors(p, vec >> 2, zero, act2, a2v, a2v);
    if (affine) affineVectors(p, vec >> 2, scale, shift);
    for (let i = vec; i < plane; i++) {
      const q = p + ((<usize>i) << 2);
      const v = act1(act1(load<f32>(q) + c, act, a, b), act2, a2, a2);
      store<f32>(q, affine ? v * scale + shift : v);
    }
  }
}

/** p[i] = p[i] · scale + shift for the n whole vectors at p. */
function affineVectors(p: usize, n: i32, scale: f32, shift: f32): void {
  const end = p + ((<usize>n) << 4);
  const s = f32x4.splat(scale);
  const t = f32x4.splat(shift);
  for (let q = p; q < end; q += 16) v128.store(q, f32x4.add(f32x4.mul(v128.load(q), s), t));
}

/**
 * y[r, j] = act(y[r, j] + bias[j]) · scale + shift over rows·cols elements (a matrix product's rows); no bias when
 * `bias` is 0; act2, scale and shift as in bias_act_planes_f32.
 */
export function bias_act_cols_f32(
  y: usize,
  bias: usize,
  rows: i32,
  cols: i32,
  act: i32,
  a: f32,
  b: f32,
  act2: i32,
  a2: f32,
  scale: f32,
  shift: f32,
): void {
  const affine = scale != 1 || shift != 0;
  const a2v = f32x4.splat(a2);
  const av = f32x4.splat(a);
  const bv = f32x4.splat(b);
  const vec = cols & ~3;
  const zero = f32x4.splat(0);
  for (let r = 0; r < rows; r++) {
    const p = y + <usize>r * <usize>cols * 4;
    if (bias)
      for (let j = 0; j < vec; j += 4) {
        const q = p + ((<usize>j) << 2);
        v128.store(q, f32x4.add(v128.load(q), v128.load(bias + ((<usize>j) << 2))));
      }
    if (act != NONE) actVectors(p, vec >> 2, zero, act, av, bv);
    if (act2 != NONE) actVectors(p, vec >> 2, zero, act2, a2v, a2v);
    if (affine) affineVectors(p, vec >> 2, scale, shift);
    for (let j = vec; j < cols; j++) {
      const q = p + ((<usize>j) << 2);
      const c: f32 = bias ? load<f32>(bias + ((<usize>j) << 2)) : 0;
      const v = act1(act1(load<f32>(q) + c, act, a, b), act2, a2, a2);
      store<f32>(q, affine ? v * scale + shift : v);
    }
  }
}
