// Integer kernels of the quantization family for the wasm dialect (AssemblyScript), called by the CPU kernels of
// specs/quant/ (runtime/src/dialects/cpu/quant.ts): the exact integer matrix product behind MatMulInteger, and
// DynamicQuantizeLinear's range and rounding.
//
// The product runs on i32x4.dot_i16x8_s: both operands are centred integers (a value minus its zero point, at most
// 255 in magnitude), held as int16 rows along K, so each lane adds two products of at most 255² into an int32
// accumulator. int32 lanes wrap modulo 2^32 as int32 accumulation does, and a sum modulo 2^32 does not depend on the
// order of its terms: every result is the exact sum wrapped to int32, whatever the blocking.

/**
 * dst[i, 0..kp) = src[i, 0..k) - zero as int16 (src int8 when `signed`, else uint8), zero from k up to kp: m rows of
 * k bytes to rows of kp int16 (kp a multiple of 8).
 */
export function int8_rows_i16(src: usize, m: i32, k: i32, signed: i32, zero: i32, dst: usize, kp: i32): void {
  const z = i16x8.splat(<i16>zero);
  for (let i = 0; i < m; i++) {
    const s = src + <usize>i * <usize>k;
    const d = dst + ((<usize>i * <usize>kp) << 1);
    let p = 0;
    for (; p + 16 <= k; p += 16) {
      const v = v128.load(s + p);
      const lo = signed ? i16x8.extend_low_i8x16_s(v) : i16x8.extend_low_i8x16_u(v);
      const hi = signed ? i16x8.extend_high_i8x16_s(v) : i16x8.extend_high_i8x16_u(v);
      v128.store(d + ((<usize>p) << 1), i16x8.sub(lo, z));
      v128.store(d + ((<usize>p) << 1) + 16, i16x8.sub(hi, z));
    }
    for (; p < k; p++) {
      const v = signed ? <i32>load<i8>(s + p) : <i32>load<u8>(s + p);
      store<i16>(d + ((<usize>p) << 1), <i16>(v - zero));
    }
    for (; p < kp; p++) store<i16>(d + ((<usize>p) << 1), 0);
  }
}

/**
 * y[i, j] = Σ_p a[i, p] · b[j, p] in int32 (wrapping): a m rows and b n rows of kp int16 (kp a multiple of 8), y rows
 * of `ny` int32 (ny ≥ n rounded up to 4; the lanes past n are another column's repeat, to be ignored). Two rows of a
 * against four of b, eight accumulators of four lanes, eight products of two pairs each per step; an odd last row of
 * a pairs with itself (computed twice, stored once), a last group of fewer than four b rows repeats its last.
 *
 * With `scale` (a pointer, not 0) the rows are float32 instead, dequantized as they are stored, each step rounded to
 * float32 as the unfused ops round it: y[i, j] = f32(f32(sum) · scale[j·sStep]) + bias[j·cStep] (no addition when bias
 * is 0). sStep and cStep are 1 (one value per column) or 0 (one for all); this needs ny = n (n a multiple of 4).
 */
export function int8_gemm_i16(
  a: usize,
  b: usize,
  m: i32,
  n: i32,
  kp: i32,
  y: usize,
  ny: i32,
  scale: usize,
  sStep: i32,
  bias: usize,
  cStep: i32,
): void {
  const row = (<usize>kp) << 1;
  const yRow = (<usize>ny) << 2;
  const dequantize = scale !== 0;
  let sv = f32x4.splat(0);
  let cv = f32x4.splat(0);
  if (dequantize && !sStep) sv = f32x4.splat(load<f32>(scale));
  if (bias && !cStep) cv = f32x4.splat(load<f32>(bias));
  // Rows of a in blocks of about 32 KiB (an even count), each block passing every column of b before the next: the
  // block stays in L2 while b streams past it, instead of all of a streaming once per four columns.
  const block = max(2, (<i32>(32768 / row)) & ~1);
  for (let i0 = 0; i0 < m; i0 += block) {
    const i1 = min(m, i0 + block);
    for (let j = 0; j < n; j += 4) {
      if (dequantize && sStep) sv = v128.load(scale + ((<usize>j) << 2));
      if (bias && cStep) cv = v128.load(bias + ((<usize>j) << 2));
      // Four rows of b (kp int16 each) stay in L1 while the block's rows of a pass them.
      const w0 = b + <usize>j * row;
      const w1 = b + <usize>min(j + 1, n - 1) * row;
      const w2 = b + <usize>min(j + 2, n - 1) * row;
      const w3 = b + <usize>min(j + 3, n - 1) * row;
      for (let i = i0; i < i1; i += 2) {
        const pair = i + 1 < i1;
        const u0 = a + <usize>i * row;
        const u1 = pair ? u0 + row : u0;
        let a0 = i32x4.splat(0),
          a1 = i32x4.splat(0),
          a2 = i32x4.splat(0),
          a3 = i32x4.splat(0);
        let b0 = i32x4.splat(0),
          b1 = i32x4.splat(0),
          b2 = i32x4.splat(0),
          b3 = i32x4.splat(0);
        for (let q: usize = 0; q < row; q += 16) {
          const u = v128.load(u0 + q);
          const v = v128.load(u1 + q);
          let c = v128.load(w0 + q);
          a0 = i32x4.add(a0, i32x4.dot_i16x8_s(u, c));
          b0 = i32x4.add(b0, i32x4.dot_i16x8_s(v, c));
          c = v128.load(w1 + q);
          a1 = i32x4.add(a1, i32x4.dot_i16x8_s(u, c));
          b1 = i32x4.add(b1, i32x4.dot_i16x8_s(v, c));
          c = v128.load(w2 + q);
          a2 = i32x4.add(a2, i32x4.dot_i16x8_s(u, c));
          b2 = i32x4.add(b2, i32x4.dot_i16x8_s(v, c));
          c = v128.load(w3 + q);
          a3 = i32x4.add(a3, i32x4.dot_i16x8_s(u, c));
          b3 = i32x4.add(b3, i32x4.dot_i16x8_s(v, c));
        }
        const ya = y + <usize>i * yRow + ((<usize>j) << 2);
        let ra = laneSums(a0, a1, a2, a3);
        let rb = laneSums(b0, b1, b2, b3);
        if (dequantize) {
          ra = f32x4.mul(f32x4.convert_i32x4_s(ra), sv);
          rb = f32x4.mul(f32x4.convert_i32x4_s(rb), sv);
          if (bias) {
            ra = f32x4.add(ra, cv);
            rb = f32x4.add(rb, cv);
          }
        }
        v128.store(ya, ra);
        if (pair) v128.store(ya + yRow, rb);
      }
    }
  }
}

/** (Σ lanes of a, Σ lanes of b, Σ lanes of c, Σ lanes of d) as one int32 vector. */
function laneSums(a: v128, b: v128, c: v128, d: v128): v128 {
  const ab = i32x4.add(v128.shuffle<i32>(a, b, 0, 4, 2, 6), v128.shuffle<i32>(a, b, 1, 5, 3, 7));
  const cd = i32x4.add(v128.shuffle<i32>(c, d, 0, 4, 2, 6), v128.shuffle<i32>(c, d, 1, 5, 3, 7));
  return i32x4.add(v128.shuffle<i32>(ab, cd, 0, 1, 4, 5), v128.shuffle<i32>(ab, cd, 2, 3, 6, 7));
}

/**
 * min(x, 0) and max(x, 0) over n float32 at x, stored as two float32 at `out`. A NaN element is skipped (each step
 * keeps the running value unless the element compares below or above it), as the JavaScript loop's `<` and `>` do.
 */
export function int8_range_f32(x: usize, n: i32, out: usize): void {
  let lo = f32x4.splat(0);
  let hi = f32x4.splat(0);
  const n4 = n & ~3;
  let p = 0;
  for (; p < n4; p += 4) {
    const v = v128.load(x + ((<usize>p) << 2));
    lo = f32x4.pmin(lo, v);
    hi = f32x4.pmax(hi, v);
  }
  let l: f32 = 0;
  let h: f32 = 0;
  l = min4(
    l,
    f32x4.extract_lane(lo, 0),
    f32x4.extract_lane(lo, 1),
    f32x4.extract_lane(lo, 2),
    f32x4.extract_lane(lo, 3),
  );
  h = -min4(
    -h,
    -f32x4.extract_lane(hi, 0),
    -f32x4.extract_lane(hi, 1),
    -f32x4.extract_lane(hi, 2),
    -f32x4.extract_lane(hi, 3),
  );
  for (; p < n; p++) {
    const v = load<f32>(x + ((<usize>p) << 2));
    if (v < l) l = v;
    if (v > h) h = v;
  }
  store<f32>(out, l);
  store<f32>(out + 4, h);
}

/** The least of l and a..d (none of them NaN). */
function min4(l: f32, a: f32, b: f32, c: f32, d: f32): f32 {
  if (a < l) l = a;
  if (b < l) l = b;
  if (c < l) l = c;
  if (d < l) l = d;
  return l;
}

/**
 * y[i] = clamp(round_half_even(x[i] / scale) + zero, 0, 255) as uint8, the quotient rounded to float32 (as ONNX
 * divides in float32); a NaN quotient gives 0. n float32 at x, n bytes at y (written in whole 16-byte vectors: y has
 * room for n rounded up to 16).
 */
export function int8_quantize_u8_f32(x: usize, n: i32, scale: f32, zero: f32, y: usize): void {
  const s = f32x4.splat(scale);
  const z = f32x4.splat(zero);
  const lo = f32x4.splat(0);
  const hi = f32x4.splat(255);
  const n16 = n & ~15;
  let p = 0;
  for (; p < n16; p += 16) {
    const src = x + ((<usize>p) << 2);
    const q0 = quantize4(v128.load(src), s, z, lo, hi);
    const q1 = quantize4(v128.load(src + 16), s, z, lo, hi);
    const q2 = quantize4(v128.load(src + 32), s, z, lo, hi);
    const q3 = quantize4(v128.load(src + 48), s, z, lo, hi);
    v128.store(y + p, i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(q0, q1), i16x8.narrow_i32x4_u(q2, q3)));
  }
  for (; p < n; p++) {
    let q: f32 = nearest<f32>(load<f32>(x + ((<usize>p) << 2)) / scale) + zero;
    // pmax/pmin as in quantize4: a NaN fails both tests and becomes 0.
    q = 0 < q ? q : 0;
    q = q < 255 ? q : 255;
    store<u8>(y + p, <u8>(<i32>q));
  }
}

function quantize4(v: v128, s: v128, z: v128, lo: v128, hi: v128): v128 {
  const q = f32x4.add(f32x4.nearest(f32x4.div(v, s)), z);
  return i32x4.trunc_sat_f32x4_u(f32x4.pmin(f32x4.pmax(lo, q), hi));
}
