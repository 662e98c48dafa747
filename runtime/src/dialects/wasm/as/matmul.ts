// Matrix product for the wasm dialect (AssemblyScript): cache blocks of packed panels around a 4×8 f32x4 register tile.
// V8 (x64) allocates 15 xmm registers to wasm: 4×8 is the largest tile whose 8 accumulators, 2 B vectors, A splats and
// product temporaries fit; 5×8 and 6×8 spill accumulators to the stack and run slower (measured, issue 15).

import { packImagePanels } from './conv';
import { fewDots, transposeCols } from './dots';
import { madd } from './madd';

// Register tile: MR rows × NR columns = 8 v128 accumulators, leaving registers for two B vectors and an A splat.
const MR = 4;
export const NR = 8;
// Cache blocks: a KC×NR panel of B (8 KiB) stays in L1 while the MC×KC block of A (64 KiB) streams from L2.
const KC = 256;
const MC = 64;
const NC = 512;

const PACK_B_BYTES: usize = <usize>KC * NC * 4;
const PACK_A_BYTES: usize = <usize>MC * KC * 4;
const TILE_BYTES: usize = <usize>MR * NR * 4;
// Up to this many columns (two panels of B), each element of A meets B's panels at most twice, and copying it into a
// packed panel costs more than splatting it from A where it lies as each tile reads it.
const IN_PLACE_COLS = 2 * NR;
// Up to this many columns, matmul_f32 dots A's rows with B's columns transposed to rows (fewColumns): packing B into
// panels and the 8-wide tiles' partial last panel do not pay for so few columns. Over 12 to 36 columns the product took
// 0.61–0.90 of the blocked product's time (96×96 by 96×20, a Winograd product of a late CNN stage: 10.4 → 6.7 µs), over
// 40 to 64 columns 0.81–0.96; at 96 the two are even.
const FEW_COLS = 64;

/** Bytes of scratch matmul_f32 needs (packed panels and an edge tile); the caller lends them. */
export function matmul_scratch_bytes(): usize {
  return PACK_B_BYTES + PACK_A_BYTES + TILE_BYTES;
}

/**
 * c[m×n] = a[m×k] · b[k×n], where element (i, p) of a sits at a + (i·aRow + p·aCol)·4 and likewise for b, so
 * transposed operands are just other strides: packing reads them once into contiguous panels.
 */
export function matmul_f32(
  a: usize,
  aRow: i32,
  aCol: i32,
  b: usize,
  bRow: i32,
  bCol: i32,
  c: usize,
  m: i32,
  n: i32,
  k: i32,
  scratch: usize,
): void {
  // A row or three (a dense layer on one sample): packing B would cost more than the product, so read it in place.
  if (m < MR && aCol == 1 && (bRow == 1 || bCol == 1)) {
    if (bCol == 1 && bRow != 1) {
      rowsAxpy(a, aRow, b, bRow, c, m, n, k);
      return;
    }
    for (let i = 0; i < m; i++) rowDots(a + <usize>i * <usize>aRow * 4, b, bCol, c + <usize>i * <usize>n * 4, n, k);
    return;
  }
  // Every row is summed alike whichever rows share the call, so threads' row parts (threads/index.ts, which does not
  // split such a product by columns) give the same bits.
  if (matmul_few_columns(n, k, aCol, bCol)) {
    fewColumns(a, aRow, b, bRow, c, m, n, k, scratch);
    return;
  }
  blockedProduct(a, aRow, aCol, b, bRow, bCol, false, c, m, n, k, scratch, 0, n);
}

/**
 * Whether matmul_f32 takes fewColumns (m ≥ 4): few columns, a's and b's rows contiguous, b's columns as rows fitting the
 * scratch. Threads (threads/index.ts) split such a product by rows only, so that each part takes the same path.
 */
export function matmul_few_columns(n: i32, k: i32, aCol: i32, bCol: i32): bool {
  return n <= FEW_COLS && aCol == 1 && bCol == 1 && <usize>((n + 3) & ~3) * fewRowBytes(k) <= PACK_B_BYTES;
}

/**
 * The stride of fewColumns' rows of k floats: an odd number of 64-byte lines, so that the four rows one 4×4 block
 * writes and fewDots reads do not share a set of the L1 cache (rows a multiple of 4 KiB apart did: 16 × 4096 by 4096 ×
 * 32 took 2.3 times the blocked product's time).
 */
function fewRowBytes(k: i32): usize {
  return (((<usize>(k + 15)) >> 4) | 1) << 6;
}

/**
 * c[m×n] = a · b for few columns n, a's and b's rows contiguous: b's columns transposed into rows of k floats at
 * `scratch` (4×4 blocks, the last n mod 4 one float at a time, so nothing past b's last row is read), then each pair
 * of a's rows dotted with four of them at a time (dots.ts fewDots).
 */
function fewColumns(a: usize, aRow: i32, b: usize, bRow: i32, c: usize, m: i32, n: i32, k: i32, scratch: usize): void {
  const n4 = n & ~3;
  const bStep = <usize>bRow * 4;
  const rowBytes = fewRowBytes(k);
  if (n4 > 0) transposeCols(b, bStep, k, n4, scratch, rowBytes);
  for (let j = n4; j < n; j++) {
    const out = scratch + <usize>j * rowBytes;
    for (let q = 0; q < k; q++) store<f32>(out + <usize>q * 4, load<f32>(b + <usize>q * bStep + <usize>j * 4));
  }
  fewDots(a, <usize>aRow * 4, m, scratch, rowBytes, n, k, c, <usize>n * 4, 4);
}

/**
 * Columns j0 ≤ j < j1 of matmul_f32's product (c still m×n, row stride n), for m ≥ 4 (the blocked path matmul_f32
 * takes): what threads run side by side when the product is wider than tall, each packing only its own part of b.
 * Every element is summed as matmul_f32 sums it.
 */
export function matmul_cols_f32(
  a: usize,
  aRow: i32,
  aCol: i32,
  b: usize,
  bRow: i32,
  bCol: i32,
  c: usize,
  m: i32,
  n: i32,
  k: i32,
  scratch: usize,
  j0: i32,
  j1: i32,
): void {
  blockedProduct(a, aRow, aCol, b, bRow, bCol, false, c, m, n, k, scratch, j0, j1);
}

/**
 * Products t0 ≤ t < t1 of a batch of matmul_f32 products of one shape, operands contiguous (aRow k, bRow n): product t
 * reads a at a + t·aFloats floats and b at b + t·bFloats, and writes c at c + t·cFloats. What threads run side by
 * side when each product is too small to split (a convolution's Winograd products over few tiles): every product is
 * summed as matmul_f32 alone sums it.
 */
export function matmul_batch_f32(
  a: usize,
  aFloats: i32,
  b: usize,
  bFloats: i32,
  c: usize,
  cFloats: i32,
  m: i32,
  n: i32,
  k: i32,
  scratch: usize,
  t0: i32,
  t1: i32,
): void {
  for (let t = t0; t < t1; t++)
    matmul_f32(
      a + <usize>t * <usize>aFloats * 4,
      k,
      1,
      b + <usize>t * <usize>bFloats * 4,
      n,
      1,
      c + <usize>t * <usize>cFloats * 4,
      m,
      n,
      k,
      scratch,
    );
}

/**
 * c[j] = Σp a[p]·b[j·ld + p] for j < n: b's columns are contiguous (b transposed), one dot product each. Four columns
 * at a time: four independent accumulator chains (one chain waits on each add's latency) sharing each load of a.
 */
function rowDots(a: usize, b: usize, ld: i32, c: usize, n: i32, k: i32): void {
  const k4 = k & ~3;
  const step = <usize>ld * 4;
  let j = 0;
  for (; j + 4 <= n; j += 4) {
    const b0 = b + <usize>j * step;
    const b1 = b0 + step;
    const b2 = b1 + step;
    const b3 = b2 + step;
    let acc0 = f32x4.splat(0);
    let acc1 = f32x4.splat(0);
    let acc2 = f32x4.splat(0);
    let acc3 = f32x4.splat(0);
    let p = 0;
    for (; p < k4; p += 4) {
      const off = <usize>p * 4;
      const av = v128.load(a + off);
      acc0 = madd(av, v128.load(b0 + off), acc0);
      acc1 = madd(av, v128.load(b1 + off), acc1);
      acc2 = madd(av, v128.load(b2 + off), acc2);
      acc3 = madd(av, v128.load(b3 + off), acc3);
    }
    let s0 = laneSum(acc0);
    let s1 = laneSum(acc1);
    let s2 = laneSum(acc2);
    let s3 = laneSum(acc3);
    for (; p < k; p++) {
      const off = <usize>p * 4;
      const ap = load<f32>(a + off);
      s0 += ap * load<f32>(b0 + off);
      s1 += ap * load<f32>(b1 + off);
      s2 += ap * load<f32>(b2 + off);
      s3 += ap * load<f32>(b3 + off);
    }
    const cj = c + <usize>j * 4;
    store<f32>(cj, s0);
    store<f32>(cj + 4, s1);
    store<f32>(cj + 8, s2);
    store<f32>(cj + 12, s3);
  }
  for (; j < n; j++) {
    const bj = b + <usize>j * step;
    let acc = f32x4.splat(0);
    let p = 0;
    for (; p < k4; p += 4) acc = madd(v128.load(a + <usize>p * 4), v128.load(bj + <usize>p * 4), acc);
    let s = laneSum(acc);
    for (; p < k; p++) s += load<f32>(a + <usize>p * 4) * load<f32>(bj + <usize>p * 4);
    store<f32>(c + <usize>j * 4, s);
  }
}

// Small enough that binaryen's optimizer inlines it (prettier cannot parse a top-level @inline here).
function laneSum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

/** Columns of c one pass of rowsAxpy keeps in L1: two rows of them are 8 KiB. */
const AXPY_COLS = 1024;

/**
 * c[i, j] = Σp a[i·aRow + p]·b[p·ld + j] for i < m (under MR rows), j < n: b's rows are contiguous, so each row of c
 * gathers a[i, p] times row p of b. A block of AXPY_COLS columns at a time: b's rows stream through it in order (a
 * column strip down b instead jumps ld floats a row, a new page each row when rows are long, and loses the hardware
 * prefetch: 6625 columns × 120 rows ran 5× slower), four rows of b a pass over c's block, and two rows of c share each
 * load of b. Each c[i, j] sums over p in order.
 */
function rowsAxpy(a: usize, aRow: i32, b: usize, ld: i32, c: usize, m: i32, n: i32, k: i32): void {
  const aStep = <usize>aRow * 4;
  const cStep = <usize>n * 4;
  for (let j0 = 0; j0 < n; j0 += AXPY_COLS) {
    const cols = min(AXPY_COLS, n - j0);
    const bj = b + <usize>j0 * 4;
    let i = 0;
    for (; i + 2 <= m; i += 2) {
      const ci = c + <usize>i * cStep + <usize>j0 * 4;
      axpy2(a + <usize>i * aStep, a + <usize>(i + 1) * aStep, bj, ld, ci, ci + cStep, cols, k);
    }
    if (i < m) axpy1(a + <usize>i * aStep, bj, ld, c + <usize>i * cStep + <usize>j0 * 4, cols, k);
  }
}

/** c0[j] = Σp a0[p]·b[p·ld + j] and c1 likewise from a1, for j < n (one block of rowsAxpy). */
function axpy2(a0: usize, a1: usize, b: usize, ld: i32, c0: usize, c1: usize, n: i32, k: i32): void {
  const step = <usize>ld * 4;
  const n4 = n & ~3;
  memory.fill(c0, 0, <usize>n * 4);
  memory.fill(c1, 0, <usize>n * 4);
  let p = 0;
  for (; p + 4 <= k; p += 4) {
    const r0 = b + <usize>p * step;
    const r1 = r0 + step;
    const r2 = r1 + step;
    const r3 = r2 + step;
    const q = <usize>p * 4;
    const s0 = v128.load32_splat(a0 + q);
    const s1 = v128.load32_splat(a0 + q + 4);
    const s2 = v128.load32_splat(a0 + q + 8);
    const s3 = v128.load32_splat(a0 + q + 12);
    const t0 = v128.load32_splat(a1 + q);
    const t1 = v128.load32_splat(a1 + q + 4);
    const t2 = v128.load32_splat(a1 + q + 8);
    const t3 = v128.load32_splat(a1 + q + 12);
    for (let j: usize = 0; j < <usize>n4 * 4; j += 16) {
      let x = v128.load(c0 + j);
      let y = v128.load(c1 + j);
      let v = v128.load(r0 + j);
      x = madd(s0, v, x);
      y = madd(t0, v, y);
      v = v128.load(r1 + j);
      x = madd(s1, v, x);
      y = madd(t1, v, y);
      v = v128.load(r2 + j);
      x = madd(s2, v, x);
      y = madd(t2, v, y);
      v = v128.load(r3 + j);
      x = madd(s3, v, x);
      y = madd(t3, v, y);
      v128.store(c0 + j, x);
      v128.store(c1 + j, y);
    }
    for (let j = n4; j < n; j++) {
      const o = <usize>j * 4;
      let x = load<f32>(c0 + o);
      let y = load<f32>(c1 + o);
      for (let d = 0; d < 4; d++) {
        const v = load<f32>(r0 + <usize>d * step + o);
        x += load<f32>(a0 + q + <usize>d * 4) * v;
        y += load<f32>(a1 + q + <usize>d * 4) * v;
      }
      store<f32>(c0 + o, x);
      store<f32>(c1 + o, y);
    }
  }
  for (; p < k; p++) {
    const r = b + <usize>p * step;
    const x0: f32 = load<f32>(a0 + <usize>p * 4);
    const y0: f32 = load<f32>(a1 + <usize>p * 4);
    const s = f32x4.splat(x0);
    const t = f32x4.splat(y0);
    let j = 0;
    for (; j < n4; j += 4) {
      const o = <usize>j * 4;
      const v = v128.load(r + o);
      v128.store(c0 + o, madd(s, v, v128.load(c0 + o)));
      v128.store(c1 + o, madd(t, v, v128.load(c1 + o)));
    }
    for (; j < n; j++) {
      const o = <usize>j * 4;
      const v = load<f32>(r + o);
      store<f32>(c0 + o, load<f32>(c0 + o) + x0 * v);
      store<f32>(c1 + o, load<f32>(c1 + o) + y0 * v);
    }
  }
}

/** c[j] = Σp a[p]·b[p·ld + j] for j < n: axpy2 for one row. */
function axpy1(a: usize, b: usize, ld: i32, c: usize, n: i32, k: i32): void {
  const step = <usize>ld * 4;
  const n4 = n & ~3;
  memory.fill(c, 0, <usize>n * 4);
  let p = 0;
  for (; p + 4 <= k; p += 4) {
    const r0 = b + <usize>p * step;
    const r1 = r0 + step;
    const r2 = r1 + step;
    const r3 = r2 + step;
    const q = <usize>p * 4;
    const s0 = v128.load32_splat(a + q);
    const s1 = v128.load32_splat(a + q + 4);
    const s2 = v128.load32_splat(a + q + 8);
    const s3 = v128.load32_splat(a + q + 12);
    for (let j: usize = 0; j < <usize>n4 * 4; j += 16) {
      let x = v128.load(c + j);
      x = madd(s0, v128.load(r0 + j), x);
      x = madd(s1, v128.load(r1 + j), x);
      x = madd(s2, v128.load(r2 + j), x);
      x = madd(s3, v128.load(r3 + j), x);
      v128.store(c + j, x);
    }
    for (let j = n4; j < n; j++) {
      const o = <usize>j * 4;
      let x = load<f32>(c + o);
      for (let d = 0; d < 4; d++) x += load<f32>(a + q + <usize>d * 4) * load<f32>(r0 + <usize>d * step + o);
      store<f32>(c + o, x);
    }
  }
  for (; p < k; p++) {
    const r = b + <usize>p * step;
    const x0: f32 = load<f32>(a + <usize>p * 4);
    const s = f32x4.splat(x0);
    let j = 0;
    for (; j < n4; j += 4) {
      const o = <usize>j * 4;
      v128.store(c + o, madd(s, v128.load(r + o), v128.load(c + o)));
    }
    for (; j < n; j++) {
      const o = <usize>j * 4;
      store<f32>(c + o, load<f32>(c + o) + x0 * load<f32>(r + o));
    }
  }
}

/**
 * The blocked product behind matmul_f32 and conv2d_f32. With `image`, b is an NCHW image and B its im2col matrix
 * (geometry set by conv.ts), packed straight from the image so the whole im2col matrix is never written out. Only
 * columns j0 ≤ j < j1 of c (m×n, row stride n) are written: a thread's share of a product split by columns.
 */
export function blockedProduct(
  a: usize,
  aRow: i32,
  aCol: i32,
  b: usize,
  bRow: i32,
  bCol: i32,
  image: bool,
  c: usize,
  m: i32,
  n: i32,
  k: i32,
  scratch: usize,
  j0: i32,
  j1: i32,
): void {
  const packB = scratch;
  const packA = scratch + PACK_B_BYTES;
  const tile = packA + PACK_A_BYTES;
  if (k == 0) {
    for (let i = 0; i < m; i++) memory.fill(c + (<usize>i * <usize>n + <usize>j0) * 4, 0, <usize>(j1 - j0) * 4);
    return;
  }
  // Depth blocks of equal size (784 = 4 × 196, not 3 × 256 + 16): a thin last block would read and write all of c for
  // little work.
  const kStep = (k + (k + KC - 1) / KC - 1) / ((k + KC - 1) / KC);
  for (let jc = j0; jc < j1; jc += NC) {
    const nc = min(NC, j1 - jc);
    for (let pc = 0; pc < k; pc += kStep) {
      const kc = min(kStep, k - pc);
      if (image) packImagePanels(b, pc, jc, kc, nc, packB);
      else packPanelsB(b, bRow, bCol, pc, jc, kc, nc, packB);
      for (let ic = 0; ic < m; ic += MC) {
        const mc = min(MC, m - ic);
        if (nc <= IN_PLACE_COLS) {
          for (let ir = 0; ir < mc; ir += MR) {
            const ai = a + (<usize>(ic + ir) * <usize>aRow + <usize>pc * <usize>aCol) * 4;
            for (let jr = 0; jr < nc; jr += NR) {
              const bp = packB + <usize>jr * <usize>kc * 4;
              const cp = c + (<usize>(ic + ir) * <usize>n + <usize>(jc + jr)) * 4;
              tileKernelInPlace(kc, ai, aRow, aCol, bp, cp, n, pc > 0, min(MR, mc - ir), min(NR, nc - jr), tile);
            }
          }
          continue;
        }
        packPanelsA(a, aRow, aCol, ic, pc, mc, kc, packA);
        for (let jr = 0; jr < nc; jr += NR) {
          const bp = packB + <usize>jr * <usize>kc * 4;
          for (let ir = 0; ir < mc; ir += MR) {
            const ap = packA + <usize>ir * <usize>kc * 4;
            const cp = c + (<usize>(ic + ir) * <usize>n + <usize>(jc + jr)) * 4;
            tileKernel(kc, ap, bp, cp, n, pc > 0, min(MR, mc - ir), min(NR, nc - jr), tile);
          }
        }
      }
    }
  }
}

/** B[pc.., jc..] into NR-wide panels, row p of a panel contiguous; columns past n are zero. */
function packPanelsB(b: usize, bRow: i32, bCol: i32, pc: i32, jc: i32, kc: i32, nc: i32, dst: usize): void {
  for (let j0 = 0; j0 < nc; j0 += NR) {
    const width = min(NR, nc - j0);
    let out = dst + <usize>j0 * <usize>kc * 4;
    if (bCol == 1 && width == NR) {
      let src = b + (<usize>pc * <usize>bRow + <usize>(jc + j0)) * 4;
      const rowStep = <usize>bRow * 4;
      for (let p = 0; p < kc; p++) {
        v128.store(out, v128.load(src));
        v128.store(out, v128.load(src, 16), 16);
        src += rowStep;
        out += NR * 4;
      }
      continue;
    }
    for (let p = 0; p < kc; p++) {
      for (let jj = 0; jj < NR; jj++) {
        const v: f32 =
          jj < width ? load<f32>(b + (<usize>(pc + p) * <usize>bRow + <usize>(jc + j0 + jj) * <usize>bCol) * 4) : 0;
        store<f32>(out + <usize>jj * 4, v);
      }
      out += NR * 4;
    }
  }
}

/**
 * A[ic.., pc..] into MR-tall panels, the MR elements of each column contiguous; rows past m are zero. The kernel splats
 * each element as it loads it (v128.load32_splat). Storing it splat across a v128 instead (16 bytes an element) made
 * products 1–3% slower, in both builds (A/B in one process, 256³ to 1024³).
 */
function packPanelsA(a: usize, aRow: i32, aCol: i32, ic: i32, pc: i32, mc: i32, kc: i32, dst: usize): void {
  const rowStep = <usize>aRow * 4;
  const colStep = <usize>aCol * 4;
  for (let i0 = 0; i0 < mc; i0 += MR) {
    const height = min(MR, mc - i0);
    let out = dst + <usize>i0 * <usize>kc * 4;
    let src = a + (<usize>(ic + i0) * <usize>aRow + <usize>pc * <usize>aCol) * 4;
    if (height < MR) memory.fill(out, 0, <usize>kc * MR * 4);
    for (let p = 0; p < kc; p++) {
      store<f32>(out, load<f32>(src));
      if (height > 1) store<f32>(out, load<f32>(src + rowStep), 4);
      if (height > 2) store<f32>(out, load<f32>(src + 2 * rowStep), 8);
      if (height > 3) store<f32>(out, load<f32>(src + 3 * rowStep), 12);
      src += colStep;
      out += MR * 4;
    }
  }
}

/** One MR×NR block of c (row stride ldc elements), overwritten or accumulated into; partial blocks go via `tile`. */
function tileKernel(
  kc: i32,
  ap: usize,
  bp: usize,
  cp: usize,
  ldc: i32,
  accumulate: bool,
  rows: i32,
  cols: i32,
  tile: usize,
): void {
  let c00 = f32x4.splat(0),
    c01 = f32x4.splat(0);
  let c10 = f32x4.splat(0),
    c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0),
    c21 = f32x4.splat(0);
  let c30 = f32x4.splat(0),
    c31 = f32x4.splat(0);
  for (let p = 0; p < kc; p++) {
    const b0 = v128.load(bp);
    const b1 = v128.load(bp, 16);
    let av = v128.load32_splat(ap);
    c00 = madd(av, b0, c00);
    c01 = madd(av, b1, c01);
    av = v128.load32_splat(ap, 4);
    c10 = madd(av, b0, c10);
    c11 = madd(av, b1, c11);
    av = v128.load32_splat(ap, 8);
    c20 = madd(av, b0, c20);
    c21 = madd(av, b1, c21);
    av = v128.load32_splat(ap, 12);
    c30 = madd(av, b0, c30);
    c31 = madd(av, b1, c31);
    ap += MR * 4;
    bp += NR * 4;
  }
  storeTile(c00, c01, c10, c11, c20, c21, c30, c31, cp, ldc, accumulate, rows, cols, tile);
}

/**
 * tileKernel with A read where it lies: element (r, p) of the block at a + r·aRow + p·aCol floats, splat as it is
 * loaded. Rows past `rows` repeat the last real row (read, summed into lanes that are never stored), so nothing past
 * A is read.
 */
function tileKernelInPlace(
  kc: i32,
  a: usize,
  aRow: i32,
  aCol: i32,
  bp: usize,
  cp: usize,
  ldc: i32,
  accumulate: bool,
  rows: i32,
  cols: i32,
  tile: usize,
): void {
  const rowStep = <usize>aRow * 4;
  const a0 = a;
  const a1 = a + <usize>min(1, rows - 1) * rowStep;
  const a2 = a + <usize>min(2, rows - 1) * rowStep;
  const a3 = a + <usize>min(3, rows - 1) * rowStep;
  const colStep = <usize>aCol * 4;
  let c00 = f32x4.splat(0),
    c01 = f32x4.splat(0);
  let c10 = f32x4.splat(0),
    c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0),
    c21 = f32x4.splat(0);
  let c30 = f32x4.splat(0),
    c31 = f32x4.splat(0);
  let o: usize = 0;
  for (let p = 0; p < kc; p++) {
    const b0 = v128.load(bp);
    const b1 = v128.load(bp, 16);
    let av = v128.load32_splat(a0 + o);
    c00 = madd(av, b0, c00);
    c01 = madd(av, b1, c01);
    av = v128.load32_splat(a1 + o);
    c10 = madd(av, b0, c10);
    c11 = madd(av, b1, c11);
    av = v128.load32_splat(a2 + o);
    c20 = madd(av, b0, c20);
    c21 = madd(av, b1, c21);
    av = v128.load32_splat(a3 + o);
    c30 = madd(av, b0, c30);
    c31 = madd(av, b1, c31);
    o += colStep;
    bp += NR * 4;
  }
  storeTile(c00, c01, c10, c11, c20, c21, c30, c31, cp, ldc, accumulate, rows, cols, tile);
}

/** A tile kernel's accumulators into c: a whole block in place (added to c when accumulating), a partial one via `tile`. */
function storeTile(
  c00: v128,
  c01: v128,
  c10: v128,
  c11: v128,
  c20: v128,
  c21: v128,
  c30: v128,
  c31: v128,
  cp: usize,
  ldc: i32,
  accumulate: bool,
  rows: i32,
  cols: i32,
  tile: usize,
): void {
  const full = rows == MR && cols == NR;
  const ld: usize = full ? <usize>ldc * 4 : NR * 4;
  const dst = full ? cp : tile;
  if (full && accumulate) {
    c00 = f32x4.add(c00, v128.load(dst));
    c01 = f32x4.add(c01, v128.load(dst, 16));
    c10 = f32x4.add(c10, v128.load(dst + ld));
    c11 = f32x4.add(c11, v128.load(dst + ld, 16));
    c20 = f32x4.add(c20, v128.load(dst + 2 * ld));
    c21 = f32x4.add(c21, v128.load(dst + 2 * ld, 16));
    c30 = f32x4.add(c30, v128.load(dst + 3 * ld));
    c31 = f32x4.add(c31, v128.load(dst + 3 * ld, 16));
  }
  v128.store(dst, c00);
  v128.store(dst, c01, 16);
  v128.store(dst + ld, c10);
  v128.store(dst + ld, c11, 16);
  v128.store(dst + 2 * ld, c20);
  v128.store(dst + 2 * ld, c21, 16);
  v128.store(dst + 3 * ld, c30);
  v128.store(dst + 3 * ld, c31, 16);
  if (full) return;
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < cols; j++) {
      const from = tile + (<usize>r * NR + <usize>j) * 4;
      const to = cp + (<usize>r * <usize>ldc + <usize>j) * 4;
      store<f32>(to, accumulate ? load<f32>(to) + load<f32>(from) : load<f32>(from));
    }
  }
}

/** The float64 product: a plain i-p-j loop (tests and gradchecks use it; speed is the f32 path's job). */
export function matmul_f64(
  a: usize,
  aRow: i32,
  aCol: i32,
  b: usize,
  bRow: i32,
  bCol: i32,
  c: usize,
  m: i32,
  n: i32,
  k: i32,
): void {
  memory.fill(c, 0, <usize>m * <usize>n * 8);
  for (let i = 0; i < m; i++) {
    const row = c + <usize>i * <usize>n * 8;
    for (let p = 0; p < k; p++) {
      const av = load<f64>(a + (<usize>i * <usize>aRow + <usize>p * <usize>aCol) * 8);
      const brow = b + <usize>p * <usize>bRow * 8;
      for (let j = 0; j < n; j++) {
        const at = row + <usize>j * 8;
        store<f64>(at, load<f64>(at) + av * load<f64>(brow + <usize>j * <usize>bCol * 8));
      }
    }
  }
}
