// Dot-product kernels of the wasm convolution for few output positions (as/conv.ts conv_few_f32, conv_frames_f32):
// rows of K floats against rows of K floats, every load a whole vector. In a file of its own because fewDots is
// @inline (so each call site gets its own copy with its strides folded: called through one shared body, the product
// took 1.03–1.09 times as long, 1.24 at 40 taps), which prettier's TypeScript parser refuses.

import { madd } from './madd';

/**
 * col's p columns (k rows, cStep bytes apart, zero from p up to the next multiple of 4) as rows of k floats at dst
 * (dStep bytes apart), (p rounded up to 4) of them, by 4×4 blocks where four rows and columns remain: four loads,
 * eight shuffles, four stores, where one float at a time took an eighth of the product's time over 36 positions.
 */
export function transposeCols(col: usize, cStep: usize, k: i32, p: i32, dst: usize, dStep: usize): void {
  const width = (<usize>((p + 3) & ~3)) << 2;
  const k4 = k & ~3;
  for (let q = 0; q < k4; q += 4) {
    const r0 = col + <usize>q * cStep;
    const r1 = r0 + cStep;
    const r2 = r1 + cStep;
    const r3 = r2 + cStep;
    let d = dst + <usize>q * 4;
    for (let j: usize = 0; j < width; j += 16) {
      const a = v128.load(r0 + j);
      const b = v128.load(r1 + j);
      const c = v128.load(r2 + j);
      const e = v128.load(r3 + j);
      const ab0 = v128.shuffle<f32>(a, b, 0, 4, 1, 5);
      const ab1 = v128.shuffle<f32>(a, b, 2, 6, 3, 7);
      const ce0 = v128.shuffle<f32>(c, e, 0, 4, 1, 5);
      const ce1 = v128.shuffle<f32>(c, e, 2, 6, 3, 7);
      v128.store(d, v128.shuffle<f32>(ab0, ce0, 0, 1, 4, 5));
      v128.store(d + dStep, v128.shuffle<f32>(ab0, ce0, 2, 3, 6, 7));
      v128.store(d + 2 * dStep, v128.shuffle<f32>(ab1, ce1, 0, 1, 4, 5));
      v128.store(d + 3 * dStep, v128.shuffle<f32>(ab1, ce1, 2, 3, 6, 7));
      d += 4 * dStep;
    }
  }
  for (let q = k4; q < k; q++) {
    const src = col + <usize>q * cStep;
    const out = dst + <usize>q * 4;
    for (let j: usize = 0; j < width; j += 4) store<f32>(out + (j >> 2) * dStep, load<f32>(src + j));
  }
}

/**
 * conv_few_f32's dot products along K: y[r, c] = a_r · b_c over k floats, for `rows` rows a_r (aStep bytes apart) and
 * `cols` rows b_c (bStep apart), stored at y + r·yRow + c·yLane. Two rows of a against four of b, eight accumulators
 * over four floats a step (two loads of a and four of b feed 32 products), the lane sums then the taps past the last
 * whole vector one at a time. An odd last row of a pairs with itself (computed twice, stored once), and a last group of
 * fewer than four b rows repeats its last (lanes not stored): every output sums in the same order whichever rows share
 * its call (threads' parts) and whichever operand is a, so results are the same bits either way round.
 */
@inline
export function fewDots(
  a: usize,
  aStep: usize,
  rows: i32,
  b: usize,
  bStep: usize,
  cols: i32,
  k: i32,
  y: usize,
  yRow: usize,
  yLane: usize,
): void {
  const kBytes = <usize>k * 4;
  const k4 = <usize>(k & ~3) * 4;
  for (let i = 0; i < rows; i += 2) {
    const pair = i + 1 < rows;
    const u0 = a + <usize>i * aStep;
    const u1 = pair ? u0 + aStep : u0;
    for (let c0 = 0; c0 < cols; c0 += 4) {
      const x0 = b + <usize>c0 * bStep;
      const x1 = b + <usize>min(c0 + 1, cols - 1) * bStep;
      const x2 = b + <usize>min(c0 + 2, cols - 1) * bStep;
      const x3 = b + <usize>min(c0 + 3, cols - 1) * bStep;
      let a0 = f32x4.splat(0),
        a1 = f32x4.splat(0),
        a2 = f32x4.splat(0),
        a3 = f32x4.splat(0);
      let b0 = f32x4.splat(0),
        b1 = f32x4.splat(0),
        b2 = f32x4.splat(0),
        b3 = f32x4.splat(0);
      for (let q: usize = 0; q < k4; q += 16) {
        const u = v128.load(u0 + q);
        const v = v128.load(u1 + q);
        let c = v128.load(x0 + q);
        a0 = madd(u, c, a0);
        b0 = madd(v, c, b0);
        c = v128.load(x1 + q);
        a1 = madd(u, c, a1);
        b1 = madd(v, c, b1);
        c = v128.load(x2 + q);
        a2 = madd(u, c, a2);
        b2 = madd(v, c, b2);
        c = v128.load(x3 + q);
        a3 = madd(u, c, a3);
        b3 = madd(v, c, b3);
      }
      // Lane sums: lane j of sa is row i's dot with b row c0 + j, of sb row i + 1's.
      let sa = transposeSum(a0, a1, a2, a3);
      let sb = transposeSum(b0, b1, b2, b3);
      for (let q = k4; q < kBytes; q += 4) {
        const c = f32x4(load<f32>(x0 + q), load<f32>(x1 + q), load<f32>(x2 + q), load<f32>(x3 + q));
        sa = madd(v128.load32_splat(u0 + q), c, sa);
        sb = madd(v128.load32_splat(u1 + q), c, sb);
      }
      const ya = y + <usize>i * yRow + <usize>c0 * yLane;
      const n = cols - c0;
      storeSpaced(ya, sa, n, yLane);
      if (pair) storeSpaced(ya + yRow, sb, n, yLane);
    }
  }
}

/** The first n (≥ 1) lanes of v at p, `lane` bytes apart: one store when they are adjacent and all four are wanted. */
@inline
function storeSpaced(p: usize, v: v128, n: i32, lane: usize): void {
  if (lane == 4) {
    storeLanes(p, v, n);
    return;
  }
  store<f32>(p, f32x4.extract_lane(v, 0));
  if (n > 1) store<f32>(p + lane, f32x4.extract_lane(v, 1));
  if (n > 2) store<f32>(p + 2 * lane, f32x4.extract_lane(v, 2));
  if (n > 3) store<f32>(p + 3 * lane, f32x4.extract_lane(v, 3));
}

/** (Σ lanes of a, Σ lanes of b, Σ lanes of c, Σ lanes of d) as one vector. */
function transposeSum(a: v128, b: v128, c: v128, d: v128): v128 {
  // Pairs of lanes summed twice: lanes (0+1 | 2+3) interleave a with b and c with d, then the halves add.
  const ab = f32x4.add(v128.shuffle<f32>(a, b, 0, 4, 2, 6), v128.shuffle<f32>(a, b, 1, 5, 3, 7));
  const cd = f32x4.add(v128.shuffle<f32>(c, d, 0, 4, 2, 6), v128.shuffle<f32>(c, d, 1, 5, 3, 7));
  return f32x4.add(v128.shuffle<f32>(ab, cd, 0, 1, 4, 5), v128.shuffle<f32>(ab, cd, 2, 3, 6, 7));
}

/** The first n (≥ 1) lanes of v at p: a whole vector when n ≥ 4, else lane by lane (the rest is another row's). */
export function storeLanes(p: usize, v: v128, n: i32): void {
  if (n >= 4) {
    v128.store(p, v);
    return;
  }
  store<f32>(p, f32x4.extract_lane(v, 0));
  if (n > 1) store<f32>(p, f32x4.extract_lane(v, 1), 4);
  if (n > 2) store<f32>(p, f32x4.extract_lane(v, 2), 8);
}
