// Wasm kernel of raf.op.conv2d (specs/nn/conv2d.yaml): per image and group, the SIMD matrix product over the im2col matrix.

import type { Conv2dKernel } from '../../../generated/bridge/conv2d.ts';
import { window2d } from '../../../ops/window.ts';
import { sizeOf } from '../../../shape.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, inPtr, outBlock, widthOf } from '../support.ts';
import {
  threadedBatch,
  threadedConv2d,
  threadedDepthwise,
  threadedMatmul,
  threadedParts,
  threadedPlanes,
  threadsFor,
} from '../threads/index.ts';

/**
 * Output positions (oh·ow) up to which conv_few_f32 beats packing panels for the blocked product or Winograd's
 * transforms (im2col written out, then no packing; single-threaded). At 20 to 36 positions it took 0.66–0.94 of the
 * time (96 → 96 1×3 over 10×2: 60 → 41 µs; 512 → 512 3×3 over 6×6: 5.5 → 4.1 ms; 64 → 64 3×3 over 6×6: 86 → 81 µs);
 * from about 40 it no longer wins (96 → 96 3×3 over 7×7: 165 → 220 µs).
 */
const FEW_POSITIONS = 36;
/**
 * The same for a pointwise convolution over a multiple of 4 positions, which conv_few_f32 reads in place: the blocked
 * product packs every weight as a 16-byte splat, which few positions do not repay (480×480 weights over 24 positions:
 * 357 → 296 µs; even at 48, 153 → 147).
 */
const FEW_POINTWISE = 48;
/**
 * Up to this many positions when a pointwise convolution has at least FEW_POINTWISE_TAPS input channels: its dot
 * products run at 29 GMAC/s where the blocked product's stay near 27 (480 → 480 over 16×8: 1092 → 1006 µs; 240 → 240
 * over 24×8: 398 → 381 µs); at 128 channels the two are even (128 → 128 over 16×8: 81 against 84 µs).
 */
const FEW_POINTWISE_WIDE = 192;
const FEW_POINTWISE_TAPS = 160;
/**
 * Taps from which a one-channel, one-row convolution reads its frames in place (conv_frames_f32) rather than writing
 * im2col for the unpacked or blocked product: 258 outputs of 256 taps over 7 frames 49 → 24 µs, 64 of 64 taps over
 * 497 frames 117 → 88 µs; at 32 taps about even (16 outputs over 3969 frames, 99 → 104 µs).
 */
const FRAME_MIN_TAPS = 64;
/** Input channels from which a 1×3 / 3×1 convolution takes the Winograd path (its transforms cost per channel). */
const WINO_MIN_CHANNELS = 8;
/**
 * Tiles (4 outputs along the taps) from which a 1×3, 3×1 or kh×3 convolution takes F(4, 3), when chosen, rather than
 * F(2, 3). Its six products are half the direct product's work (F(2, 3)'s four: 2/3): over 32×16 outputs (128 tiles)
 * it took 0.89–0.94 of F(2, 3)'s time at 32 to 128 channels, over 128×16 0.79–0.81; at 64 tiles it was even or slower
 * (16 → 16 over 16×16: 1.1 times), the kernel transform and the narrow products no longer repaid.
 */
const WINO43_MIN_TILES = 128;
/** Tiles (2×2 outputs) from which a 3×3 convolution takes F(2×2, 3×3) rather than F(2, 3) along the width. */
const WINO2D_MIN_TILES = 16;
/**
 * Tiles (4×4 outputs) from which a 3×3 convolution takes F(4×4, 3×3), when chosen, rather than F(2×2, 3×3); also 4
 * along a row. Below, its 36 products over few tiles each pack their U_t for little work: 64 → 64 channels over 16×16
 * took 1.4 times F(2×2, 3×3)'s time, over 32×32 (64 tiles) 0.94, over 56×56 0.77.
 */
const WINO44_MIN_TILES = 64;

/** The output tile of the 3×3 Winograd convolution: 2 (F(2×2, 3×3)) or 4 (F(4×4, 3×3)). */
export type WinogradTile = 2 | 4;
let winogradTile: WinogradTile = 2;

/**
 * Chooses the Winograd transforms of float32 convolutions at unit stride in the wasm dialect. 2, the default: F(2×2,
 * 3×3) for 3×3 kernels, 4/9 of the direct product's multiply-adds, and F(2, 3) for 1×3, 3×1 and kh×3 ones, 2/3. 4:
 * F(4×4, 3×3), 1/4, where a 3×3 convolution has at least 64 tiles of 4×4 outputs (32×32), taking 0.75 to 0.95 of the
 * time there, and F(4, 3), 1/2, where a 1-D one has at least 128 tiles of 4 outputs, 0.79 to 0.94. Their rounding
 * errors are larger: measured against float64 on uniform values in [-1, 1], F(4×4, 3×3)'s largest error was 2e-6 to
 * 5e-6 of the largest output with 64 to 512 input channels (F(2×2, 3×3): 4e-7 to 8e-7), F(4, 3)'s 8e-7 to 2.1e-6 with
 * 64 to 256 (F(2, 3): 3e-7 to 6e-7): the fast-math trade other libraries make behind an option. Takes effect from the
 * next call.
 */
export function setWasmWinograd(tile: WinogradTile): void {
  if (tile !== 2 && tile !== 4) throw new Error(`setWasmWinograd: tile must be 2 or 4, not ${JSON.stringify(tile)}`);
  winogradTile = tile;
}

/** The output tile setWasmWinograd chose (2 unless changed). */
export function wasmWinograd(): WinogradTile {
  return winogradTile;
}

/** At least n floats, a whole and odd number of 64-byte lines: the stride between the matrices of a Winograd batch. */
const spread = (n: number): number => {
  const lines = Math.ceil(n / 16);
  return (lines | 1) * 16;
};

export const conv2dWasm: Conv2dKernel = ({ x, w }, { stride, padding, dilation, groups }, out) => {
  const width = widthOf(out.dtype)!;
  const bytes = width === 'f32' ? 4 : 8;
  const g = window2d('conv2d', x.shape, w.shape.slice(2), stride, padding, dilation);
  const [n, c, h, wd] = x.shape as [number, number, number, number];
  const o = w.shape[0]!;
  const cg = c / groups;
  const og = o / groups;
  // Per group: y[og, P] = w[og, K] · im2col(x)[K, P], K the taps of one output and P the output positions.
  const k = cg * g.kh * g.kw;
  const p = g.oh * g.ow;
  // A 1×1 kernel with unit stride and no padding reads x as it lies: each group's channels already are im2col(x).
  const pointwise =
    g.kh === 1 &&
    g.kw === 1 &&
    g.sh === 1 &&
    g.sw === 1 &&
    g.padTop === 0 &&
    g.padLeft === 0 &&
    g.oh === h &&
    g.ow === wd;
  const mod = wasm();
  const arena = callArena();
  const px = inPtr(arena, width, x);
  const pw = inPtr(arena, width, w);
  const y = outBlock(arena, width, out);
  const py = y.ptr;
  // float32 packs im2col panels straight from x inside the product; float64 writes the matrix out first.
  const col = width === 'f64' && !pointwise ? allocFor(arena, width, k * p) : 0;
  // Depthwise (one channel in and out per group): a direct loop per channel, no product to pack for one row.
  if (width === 'f32' && cg === 1 && og === 1) {
    for (let i = 0; i < n; i++) {
      const args = [
        px + i * c * h * wd * bytes,
        pw,
        py + i * o * p * bytes,
        c,
        h,
        wd,
        g.kh,
        g.kw,
        g.sh,
        g.sw,
        g.dh,
        g.dw,
        g.padTop,
        g.padLeft,
        g.oh,
        g.ow,
      ] as const;
      // Opt-in threads (threads/index.ts) split the channels when on and the image is large.
      if (!threadedDepthwise(args)) mod.conv2d_dw_f32(...args);
    }
    return y.tensor();
  }
  // One channel, one row, no padding, and a long kernel (an STFT's framing): each position's taps lie in a row of x,
  // which as/conv.ts conv_frames_f32 dots with w's rows where they lie.
  if (
    width === 'f32' &&
    c === 1 &&
    h === 1 &&
    g.kh === 1 &&
    g.dw === 1 &&
    g.padTop === 0 &&
    g.padLeft === 0 &&
    (g.ow - 1) * g.sw + g.kw <= wd &&
    g.kw >= FRAME_MIN_TAPS
  ) {
    const split = threadsFor(o * g.kw * p);
    for (let i = 0; i < n; i++) {
      const args = [pw, px + i * wd * 4, g.sw * 4, py + i * o * p * 4, o, g.kw, p] as const;
      if (!threadedParts('conv_frames_part_f32', split, args)) mod.conv_frames_f32(...args);
    }
    return y.tensor();
  }
  // A few output positions (late CNN stages, 1×1 images): the product without packing (as/conv.ts conv_few_f32), or
  // for one position a matrix-vector product; im2col is written out unless x already is it, 4-aligned.
  const fewPointwise = p <= (k >= FEW_POINTWISE_TAPS ? FEW_POINTWISE_WIDE : FEW_POINTWISE);
  if (width === 'f32' && (p <= FEW_POSITIONS || (pointwise && p % 4 === 0 && fewPointwise))) {
    const ld = p === 1 ? 1 : (p + 3) & ~3;
    const direct = pointwise && ld === p;
    const col = direct ? 0 : allocFor(arena, width, k * ld);
    // conv_few_f32 transposes the positions into ld rows of k floats, for each thread its own copy when opt-in
    // threads split the output channels.
    const split = p === 1 ? 1 : threadsFor(og * k * p);
    const rows = allocFor(arena, width, ld * k * split);
    for (let i = 0; i < n; i++) {
      for (let gi = 0; gi < groups; gi++) {
        const xg = px + (i * c + gi * cg) * h * wd * 4;
        const wg = pw + gi * og * k * 4;
        const yg = py + (i * o + gi * og) * p * 4;
        if (!direct)
          mod.im2col_f32(xg, col, ld, cg, h, wd, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padLeft, g.oh, g.ow);
        const cols = direct ? xg : col;
        // One position: y[og] = w[og, K] · col[K], dot products over w's contiguous rows (matmul_f32's row path).
        if (p === 1) mod.matmul_f32(cols, k, 1, wg, 1, k, yg, 1, og, k, 0);
        else if (!threadedParts('conv_few_part_f32', split, [wg, cols, ld, yg, og, k, p, rows]))
          mod.conv_few_f32(wg, cols, ld, yg, og, k, p, rows);
      }
    }
    return y.tensor();
  }
  const scratchBytes = mod.matmul_scratch_bytes();
  const scratch = width === 'f32' ? arena.alloc(scratchBytes) : 0;
  // Winograd at unit stride and dilation (as/winograd.ts), on a zero-padded copy if padded; threads (when on) split
  // each product, the padding copy and both transforms. A 3×3 kernel takes F(2×2, 3×3): sixteen products of 4/9 the
  // im2col product's work, the copy rounding an odd output up to even rows and columns. Other kh×3 kernels (1×3, 5×3),
  // or a 3×1 one padded only along its taps, with an even output along the 3 taps, take F(2, 3): four products of 2/3.
  const unit = g.sh === 1 && g.sw === 1 && g.dh === 1 && g.dw === 1;
  const [th4, tw4] = [(g.oh + 3) >> 2, (g.ow + 3) >> 2];
  const wino44 = winogradTile === 4 && g.kh === 3 && g.kw === 3 && tw4 >= 4 && th4 * tw4 >= WINO44_MIN_TILES;
  const wino2d = g.kh === 3 && g.kw === 3 && ((g.oh + 1) >> 1) * ((g.ow + 1) >> 1) >= WINO2D_MIN_TILES;
  const alongW = g.kw === 3;
  const alongH = g.kh === 3 && g.kw === 1 && g.ow === wd && g.padLeft === 0;
  // F(4, 3), when chosen, takes four rows (along the width) or columns (along the height) a step, and tiles of 4 along
  // the taps: an output along them that is not a multiple of 4 reads a zero-padded copy and drops the extra outputs.
  const [across, along4] = alongW ? [g.oh, (g.ow + 3) >> 2] : [g.ow, (g.oh + 3) >> 2];
  const wino43 =
    winogradTile === 4 && !wino2d && (alongW || alongH) && across >= 4 && across * along4 >= WINO43_MIN_TILES;
  if (
    width === 'f32' &&
    groups === 1 &&
    unit &&
    c >= WINO_MIN_CHANNELS &&
    (wino44 || wino2d || wino43 || ((alongW || alongH) && (alongW ? g.ow : g.oh) % 2 === 0))
  ) {
    const [hp, wp] = wino44
      ? [4 * th4 + 2, 4 * tw4 + 2]
      : wino2d
        ? [2 * ((g.oh + 1) >> 1) + 2, 2 * ((g.ow + 1) >> 1) + 2]
        : wino43
          ? alongW
            ? [g.oh + g.kh - 1, 4 * along4 + 2]
            : [4 * along4 + 2, g.ow]
          : [g.oh + g.kh - 1, g.ow + g.kw - 1];
    // F(4×4, 3×3) always reads a copy, 16 bytes longer: its last tiles of a row load two floats past the row.
    const padded = wino44 || hp !== h || wp !== wd || g.padTop > 0 || g.padLeft > 0;
    const xPad = padded ? arena.alloc(c * hp * wp * 4 + 16) : 0;
    // `count` products U_t[o, k] · V_t[k, tiles] = M_t[o, tiles] between the transforms.
    const [count, k, tiles] = wino44
      ? [36, c, th4 * tw4]
      : wino2d
        ? [16, c, ((hp - 2) / 2) * ((wp - 2) / 2)]
        : wino43
          ? [6, alongW ? c * g.kh : c, across * along4]
          : [4, alongW ? c * g.kh : c, p / 2];
    // Each U_t, V_t and M_t starts an odd number of 64-byte lines after the one before: at a multiple of 4 KiB (64·64
    // floats) the transforms' sixteen streams would fall in one set of the L1 cache (input transform 0.54 → 0.11 ms).
    const [us, vs, ms] = [spread(o * k), spread(k * tiles), spread(o * tiles)];
    const [u, v, m] = [arena.alloc(count * us * 4), arena.alloc(count * vs * 4), arena.alloc(count * ms * 4)];
    const split = threadsFor(count * o * k * tiles);
    for (let i = 0; i < n; i++) {
      const xi = px + i * c * h * wd * 4;
      if (
        padded &&
        !threadedPlanes('pad_planes_f32', split, xi, h * wd, xPad, hp * wp, c, [h, wd, g.padTop, g.padLeft, hp, wp])
      )
        mod.pad_planes_f32(xi, xPad, c, h, wd, g.padTop, g.padLeft, hp, wp);
      const xin = padded ? xPad : xi;
      if (wino44) {
        if (!threadedParts('wino44_in_f32', split, [xin, pw, c, hp, wp, o, u, us, v, vs]))
          mod.wino44_in_f32(xin, pw, c, hp, wp, o, u, us, v, vs, 0, 1);
      } else if (wino2d) {
        if (!threadedParts('wino33_in_f32', split, [xin, pw, c, hp, wp, o, u, us, v, vs]))
          mod.wino33_in_f32(xin, pw, c, hp, wp, o, u, us, v, vs, 0, 1);
      } else if (!threadedParts('wino3_in_f32', split, [xin, pw, c, hp, wp, g.kh, o, +alongW, u, us, v, vs, +wino43]))
        mod.wino3_in_f32(xin, pw, c, hp, wp, g.kh, o, alongW, u, us, v, vs, wino43, 0, 1);
      // Products too small to split each go whole to the threads side by side; larger ones split one at a time.
      if (!threadedBatch(arena, count, u, us, v, vs, m, ms, o, tiles, k, scratch, scratchBytes))
        for (let t = 0; t < count; t++) {
          const [ut, vt, mt] = [u + t * us * 4, v + t * vs * 4, m + t * ms * 4];
          if (!threadedMatmul(arena, width, ut, k, 1, vt, tiles, 1, mt, o, tiles, k, scratch, scratchBytes))
            mod.matmul_f32(ut, k, 1, vt, tiles, 1, mt, o, tiles, k, scratch);
        }
      const yi = py + i * o * p * 4;
      if (wino44) {
        if (!threadedParts('wino44_out_f32', split, [yi, g.oh, g.ow, o, m, ms]))
          mod.wino44_out_f32(yi, g.oh, g.ow, o, m, ms, 0, 1);
      } else if (wino2d) {
        if (!threadedParts('wino33_out_f32', split, [yi, g.oh, g.ow, o, m, ms]))
          mod.wino33_out_f32(yi, g.oh, g.ow, o, m, ms, 0, 1);
      } else if (wino43) {
        if (!threadedParts('wino43_out_f32', split, [yi, hp, wp, g.kh, o, +alongW, m, ms, g.oh, g.ow]))
          mod.wino43_out_f32(yi, hp, wp, g.kh, o, alongW, m, ms, g.oh, g.ow, 0, 1);
      } else if (!threadedParts('wino3_out_f32', split, [yi, hp, wp, g.kh, o, +alongW, m, ms]))
        mod.wino3_out_f32(yi, hp, wp, g.kh, o, alongW, m, ms, 0, 1);
    }
    return y.tensor();
  }
  // A padded float32 convolution runs unpadded on a zero-padded copy of each image (c·hp·wp floats, small beside the
  // im2col panels it feeds), so every panel away from the right edge packs with vector loads and no bounds tests.
  const hp = Math.max(h + g.padTop, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  // At column stride 2 the last four outputs' loads reach one column past their last tap: the copy has it, zero.
  const wp = Math.max(wd + g.padLeft, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 + (g.sw === 2 ? 1 : 0));
  const padded = width === 'f32' && !pointwise && (hp > h || wp > wd);
  const xPad = padded ? arena.alloc(c * hp * wp * 4) : 0;
  const [ih, iw, pt, pl] = padded ? [hp, wp, 0, 0] : [h, wd, g.padTop, g.padLeft];
  for (let i = 0; i < n; i++) {
    if (padded) mod.pad_planes_f32(px + i * c * h * wd * 4, xPad, c, h, wd, g.padTop, g.padLeft, hp, wp);
    for (let gi = 0; gi < groups; gi++) {
      const xg = padded ? xPad + gi * cg * ih * iw * 4 : px + (i * c + gi * cg) * h * wd * bytes;
      const wg = pw + gi * og * k * bytes;
      const yg = py + (i * o + gi * og) * p * bytes;
      if (width === 'f32') {
        // Opt-in threads (threads/index.ts) split the output channels when on and the product is large.
        if (pointwise) {
          if (!threadedMatmul(arena, width, wg, k, 1, xg, p, 1, yg, og, p, k, scratch, scratchBytes))
            mod.matmul_f32(wg, k, 1, xg, p, 1, yg, og, p, k, scratch);
        } else {
          const args = [
            xg,
            wg,
            yg,
            cg,
            ih,
            iw,
            g.kh,
            g.kw,
            g.sh,
            g.sw,
            g.dh,
            g.dw,
            pt,
            pl,
            g.oh,
            g.ow,
            og,
            scratch,
            0,
            p,
          ] as const;
          if (!threadedConv2d(arena, args, og, k, p, scratchBytes)) mod.conv2d_f32(...args);
        }
      } else {
        if (!pointwise)
          mod.im2col_f64(xg, col, cg, h, wd, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.padTop, g.padLeft, g.oh, g.ow);
        mod.matmul_f64(wg, k, 1, pointwise ? xg : col, p, 1, yg, og, p, k);
      }
    }
  }
  return y.tensor();
};
