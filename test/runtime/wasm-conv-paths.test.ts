// The wasm convolution's paths for the small convolutions of real CNNs (issue 15), each against the float64 reference
// in test/support: the unpacked product for few output positions (conv_few_f32: dot products along K against the
// positions transposed to rows, one position as a matrix-vector product), frames read in place (conv_frames_f32), and
// the depthwise kernel over a zero-padded image or band of rows (column strides 1 and 2 vectorized, others scalar;
// blocks of rows and columns by the output's shape).

import { afterAll, describe, expect, it } from 'vitest';
import { ops, setWasmWinograd, tensor, wasmWinograd, withDialect } from '../../runtime/src/index.ts';
import { sizeOf } from '../../runtime/src/shape.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { conv2dRef, lcgValues as values } from '../support/reference.ts';

type Case = [name: string, x: number[], w: number[], stride: number[], pads: number[], groups: number, dil?: number[]];

function check([, xs, ws, stride, pads, groups, dil = [1, 1]]: Case): void {
  const x = values(sizeOf(xs), 11);
  const w = values(sizeOf(ws), 12);
  const want = conv2dRef(x, xs, w, ws, stride, pads, groups, dil);
  const got = withDialect(['wasm'], () =>
    ops.conv2d(
      tensor(x, { shape: xs, dtype: 'float32' }),
      tensor(w, { shape: ws, dtype: 'float32' }),
      stride,
      pads,
      dil,
      groups,
    ),
  );
  expect(got.shape).toEqual(want.shape);
  assertAllClose(got.dataSync(), want.data, tolerance('float32'));
}

describe('wasm conv2d with few output positions', () => {
  const cases: Case[] = [
    // One position: squeeze-excite 1×1 convolutions on a pooled image, and a 3×1 kernel that leaves 1×1.
    ['pointwise on 1×1, 6 outputs', [1, 40, 1, 1], [6, 40, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['3×1 down to 1×1', [1, 9, 3, 1], [5, 9, 3, 1], [1, 1], [0, 0, 0, 0], 1],
    // Positions a multiple of 4 read x as it lies; the rest go through im2col rows padded to 4.
    ['pointwise 2×2, 13 outputs (a row past the quads)', [1, 37, 2, 2], [13, 37, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 2×3', [1, 19, 2, 3], [8, 19, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 4×4 (two vectors, whole)', [2, 21, 4, 4], [9, 21, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 3×5 (two vectors, last partial)', [1, 16, 3, 5], [7, 16, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 1×14, 2 groups', [1, 12, 1, 14], [10, 6, 1, 1], [1, 1], [0, 0, 0, 0], 2],
    ['3×3 stride 2 padding 1 to 2×2', [1, 11, 4, 4], [12, 11, 3, 3], [2, 2], [1, 1, 1, 1], 1],
    ['1×3 padding left and right, 3×3 out', [1, 8, 3, 3], [5, 8, 1, 3], [1, 1], [0, 1, 0, 1], 1],
    ['dilated 3×3 to 2×2', [1, 6, 6, 6], [4, 6, 3, 3], [1, 1], [0, 0, 0, 0], 1, [2, 2]],
    // Dot products along K against the positions transposed to rows: four rows of w against one or two positions (the
    // last four overlapping the ones before), two rows against each four positions (an odd last row paired with itself).
    ['pointwise 1×2, 7 outputs, k = 70', [1, 70, 1, 2], [7, 70, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['1×3 padding left and right to 1×2, 6 outputs', [1, 40, 1, 2], [6, 40, 1, 3], [1, 1], [0, 1, 0, 1], 1],
    ['pointwise 1×2, 3 outputs (pairs of rows)', [1, 9, 2, 1], [3, 9, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 1×3, 5 outputs', [1, 33, 1, 3], [5, 33, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 2×2, 3 outputs, k = 64', [1, 64, 2, 2], [3, 64, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 2×2, 1 output', [1, 10, 2, 2], [1, 10, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    // More positions: groups of four, the last one partial; taps past the last whole vector (k not a multiple of 4)
    // go one at a time, both in the transposition and in the dots.
    ['pointwise 3×4: three groups of four', [1, 20, 3, 4], [9, 20, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 2×5: two groups and two', [1, 12, 2, 5], [6, 12, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['3×3 padding 1 to 3×3, 3 outputs, k = 63', [1, 7, 3, 3], [3, 7, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    ['pointwise 2×4, 2 outputs, k = 7', [1, 7, 2, 4], [2, 7, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 2×3, 1 output (positions on the lanes)', [1, 9, 2, 3], [1, 9, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    // Up to 36 positions, ahead of Winograd and the blocked product.
    [
      '3×3 padding 1 over 5×5: 25 positions, six groups and one',
      [1, 20, 5, 5],
      [12, 20, 3, 3],
      [1, 1],
      [1, 1, 1, 1],
      1,
    ],
    [
      '1×3 padding left and right over 12×3: 36 positions, nine groups',
      [1, 16, 12, 3],
      [7, 16, 1, 3],
      [1, 1],
      [0, 1, 0, 1],
      1,
    ],
    [
      'pointwise 17 positions (im2col rows: four groups and one)',
      [1, 10, 1, 17],
      [6, 10, 1, 1],
      [1, 1],
      [0, 0, 0, 0],
      1,
    ],
    // Just past the threshold: the blocked product, for contrast.
    ['pointwise 6×4, 40 outputs (24 positions, read in place)', [1, 36, 6, 4], [40, 36, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 48 positions, 2 groups', [1, 20, 8, 6], [14, 10, 1, 1], [1, 1], [0, 0, 0, 0], 2],
    ['pointwise 52 positions (blocked)', [1, 12, 4, 13], [9, 12, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    [
      'pointwise 8×8 over 160 channels (wide enough for dots)',
      [1, 160, 8, 8],
      [10, 160, 1, 1],
      [1, 1],
      [0, 0, 0, 0],
      1,
    ],
    ['pointwise 14×14 over 160 channels (blocked)', [1, 160, 14, 14], [6, 160, 1, 1], [1, 1], [0, 0, 0, 0], 1],
    ['pointwise 37 positions (blocked)', [1, 10, 1, 37], [6, 10, 1, 1], [1, 1], [0, 0, 0, 0], 1],
  ];
  for (const c of cases) it(c[0], () => check(c));
});

describe('wasm conv2d over frames (one channel, one row, a long kernel)', () => {
  // Each position's taps lie in x's one row (an audio front end's STFT as a convolution): dot products where they lie.
  const cases: Case[] = [
    ['1×512 at stride 160 over 1760 samples, 33 outputs', [1, 1, 1, 1760], [33, 1, 1, 512], [1, 160], [0, 0, 0, 0], 1],
    ['1×64 at stride 7, 10 frames (the last group two)', [1, 1, 1, 128], [5, 1, 1, 64], [1, 7], [0, 0, 0, 0], 1],
    ['1×67 at stride 3, 1 output (a row paired with itself)', [1, 1, 1, 90], [1, 1, 1, 67], [1, 3], [0, 0, 0, 0], 1],
    ['1×64 at stride 16, 2 images, 15 frames', [2, 1, 1, 300], [6, 1, 1, 64], [1, 16], [0, 0, 0, 0], 1],
    ['1×64 at unit stride, 169 frames', [1, 1, 1, 232], [3, 1, 1, 64], [1, 1], [0, 0, 0, 0], 1],
    // Not frames: dilated taps, padding, and a short kernel go through im2col.
    ['1×64 dilated 2', [1, 1, 1, 300], [4, 1, 1, 64], [1, 8], [0, 0, 0, 0], 1, [1, 2]],
    ['1×64 padded 8 each side', [1, 1, 1, 160], [4, 1, 1, 64], [1, 10], [0, 8, 0, 8], 1],
    ['1×32 at stride 4', [1, 1, 1, 100], [4, 1, 1, 32], [1, 4], [0, 0, 0, 0], 1],
  ];
  for (const c of cases) it(c[0], () => check(c));
});

describe('wasm depthwise conv2d', () => {
  const dw = (
    name: string,
    c: number,
    h: number,
    wd: number,
    k: number[],
    stride: number[],
    pads: number[],
    dil?: number[],
  ): Case => [name, [1, c, h, wd], [c, 1, k[0]!, k[1]!], stride, pads, c, dil];
  const cases: Case[] = [
    // Narrower than the kernel's reach: every tap of every output touches padding.
    dw('5×5 padding 2 over 4 columns', 6, 7, 4, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('3×3 padding 1, rows of 1, 2, 3 past the vectors', 3, 5, 9, [3, 3], [1, 1], [1, 1, 1, 1]),
    dw('3×3 padding 1 on 2 columns', 2, 3, 2, [3, 3], [1, 1], [1, 1, 1, 1]),
    dw('column stride 2', 4, 8, 11, [3, 3], [1, 2], [1, 1, 1, 1]),
    dw('column stride 2, 10 columns out (eight at a time, then the rest)', 3, 6, 19, [3, 3], [1, 2], [1, 1, 1, 1]),
    dw('column stride 2, 5×5 dilated, 16 columns out', 2, 12, 40, [5, 5], [1, 2], [4, 4, 4, 4], [2, 2]),
    dw('row stride 2', 4, 9, 8, [5, 5], [2, 1], [2, 2, 2, 2]),
    dw('stride 2 both, uneven pads', 3, 10, 13, [3, 3], [2, 2], [0, 1, 1, 0]),
    dw('column stride 3 (scalar)', 3, 7, 14, [3, 3], [1, 3], [1, 1, 1, 1]),
    dw('dilation 2', 3, 9, 10, [3, 3], [1, 1], [2, 2, 2, 2], [2, 2]),
    dw('an image too tall to pad whole (a band of rows at a time)', 2, 100, 30, [3, 3], [1, 1], [1, 1, 1, 1]),
    dw('rows wider than the padded-row buffer (scalar)', 2, 6, 1200, [3, 5], [1, 1], [1, 2, 1, 2]),
    dw('no padding, 7×7', 2, 9, 12, [7, 7], [1, 1], [0, 0, 0, 0]),
    // Whole padded images, four output rows at a time (column stride 2, or three to five rows at most four columns
    // wide): exactly four, then 12 (three groups), 5 (the last group overlaps the first), and under four rows (four
    // computed, only those stored).
    dw('5×5 padding 2, 4×4 out (one group of four rows)', 5, 4, 4, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('3×3 column stride 2, 12×4 out (three groups of rows)', 3, 12, 8, [3, 3], [1, 2], [1, 1, 1, 1]),
    dw('5×5 padding 2, 5×4 out (two groups overlapping)', 3, 5, 4, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('5×5 padding 2, 3×4 out (under four rows)', 4, 3, 4, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('5×5 row stride 2, 6 rows in, 3 out', 3, 6, 4, [5, 5], [2, 1], [2, 2, 2, 2]),
    dw('5×5 padding 2, 2×2 out', 3, 2, 2, [5, 5], [1, 1], [2, 2, 2, 2]),
    // Column stride 1, six vectors of sums at a time (depthwiseSix): three rows by eight columns, then four columns;
    // the one or two rows past the last three a row at a time.
    dw('3×3 padding 1, 3×96 out (three rows by eight columns)', 3, 3, 96, [3, 3], [1, 1], [1, 1, 1, 1]),
    dw(
      '5×5 padding 2, 6×5 out (two blocks of three rows, the second vector one column)',
      3,
      6,
      5,
      [5, 5],
      [1, 1],
      [2, 2, 2, 2],
    ),
    dw('5×5 padding 2, 4×12 out (eight columns then four, then a row alone)', 2, 4, 12, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('3×3 padding 1, 8×13 out (two blocks of three rows, then two rows)', 2, 8, 13, [3, 3], [1, 1], [1, 1, 1, 1]),
    dw('5×5 row stride 2, 3×96 out', 2, 6, 96, [5, 5], [2, 1], [2, 2, 2, 2]),
    // Six rows by four columns on images at most four outputs wide.
    dw('5×5 padding 2, 12×4 out (six rows by four columns, twice)', 3, 12, 4, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('3×3 padding 1, 7×3 out (the second six rows overlap the first)', 2, 7, 3, [3, 3], [1, 1], [1, 1, 1, 1]),
    dw('5×5 dilation 2, row stride 2, 7×4 out', 2, 14, 4, [5, 5], [2, 1], [4, 4, 4, 4], [2, 2]),
    // One or two rows, twenty-four columns at a time, then eight, then four.
    dw('5×5 padding 2, 2×96 out (twenty-four columns at a time)', 3, 2, 96, [5, 5], [1, 1], [2, 2, 2, 2]),
    dw('3×3 padding 1, one row of 61 (twenty-four twice, eight, then five)', 2, 1, 61, [3, 3], [1, 1], [1, 1, 1, 1]),
  ];
  for (const c of cases) it(c[0], () => check(c));
});

describe('wasm conv2d blocked product: image panels packed with vector loads where every tap is inside', () => {
  const cases: Case[] = [
    ['3×1 unpadded, 8 columns, 2 groups', [1, 6, 12, 8], [4, 3, 3, 1], [1, 1], [0, 0, 0, 0], 2],
    [
      '1×3 padding left and right, 4 columns (a panel spans two output rows)',
      [1, 5, 9, 4],
      [6, 5, 1, 3],
      [1, 1],
      [0, 1, 0, 1],
      1,
    ],
    [
      '3×3 padding 1, 6 columns (panel halves cross rows at times)',
      [2, 4, 7, 6],
      [5, 4, 3, 3],
      [1, 1],
      [1, 1, 1, 1],
      1,
    ],
    ['3×3 stride 2 padding 1 (column stride 2: even lanes)', [1, 3, 12, 13], [4, 3, 3, 3], [2, 2], [1, 1, 1, 1], 1],
    ['3×3 stride 2 unpadded, a spare column at the right', [1, 2, 11, 20], [3, 2, 3, 3], [2, 2], [0, 0, 0, 0], 1],
    ['column stride 2 only, dilation 2, 2 groups', [1, 4, 9, 22], [6, 2, 2, 3], [1, 2], [1, 0, 0, 1], 2, [1, 2]],
    ['column stride 3 (packs lane by lane)', [1, 3, 8, 30], [4, 3, 3, 3], [1, 3], [1, 1, 1, 1], 1],
    ['row stride 2, bottom padding only', [1, 4, 11, 9], [3, 4, 3, 3], [2, 1], [0, 0, 1, 0], 1],
    [
      'dilation 2, padding 2, 2 columns (halves not contiguous)',
      [1, 3, 10, 2],
      [3, 3, 3, 3],
      [1, 1],
      [2, 2, 2, 2],
      1,
      [2, 2],
    ],
    ['dilation 2, padding 2, 8 columns', [1, 3, 9, 8], [4, 3, 3, 3], [1, 1], [2, 2, 2, 2], 1, [2, 2]],
    // 7 columns out: odd, so not Winograd.
    ['3×3 padding 1 with 360 taps (two depth blocks)', [1, 40, 6, 7], [8, 40, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    [
      '5×5 unpadded, 30 columns (right-edge panels pack lane by lane)',
      [1, 3, 9, 34],
      [4, 3, 5, 5],
      [1, 1],
      [0, 0, 0, 0],
      1,
    ],
  ];
  for (const c of cases) it(c[0], () => check(c));
});

describe('wasm conv2d Winograd F(2, 3): kh×3 and 3×1 kernels at unit stride with an even output along the taps', () => {
  const cases: Case[] = [
    [
      '1×3 padding left and right, 5 tiles a row (four, then one)',
      [1, 8, 5, 10],
      [6, 8, 1, 3],
      [1, 1],
      [0, 1, 0, 1],
      1,
    ],
    ['3×1 unpadded, 7 columns (a vector, then three)', [1, 9, 10, 7], [5, 9, 3, 1], [1, 1], [0, 0, 0, 0], 1],
    ['3×1 padding top and bottom, two images', [2, 16, 6, 9], [12, 16, 3, 1], [1, 1], [1, 0, 1, 0], 1],
    ['1×3 padding left only', [1, 10, 5, 9], [7, 10, 1, 3], [1, 1], [0, 1, 0, 0], 1],
    ['1×3 as oww-embedding: 24 channels over 74×32', [1, 24, 74, 32], [24, 24, 1, 3], [1, 1], [0, 1, 0, 1], 1],
    ['3×1 with 300 input channels (two depth blocks)', [1, 300, 12, 4], [9, 300, 3, 1], [1, 1], [0, 0, 0, 0], 1],
    // kh×3: F(2, 3) along the width, the kernel rows as more input rows of the products (a 3×3 kernel under 16 tiles).
    ['5×3 uneven padding', [1, 9, 8, 6], [4, 9, 5, 3], [1, 1], [2, 1, 1, 1], 1],
    ['3×3 padding 1 to 4×10: 10 tiles, F(2, 3)', [1, 12, 4, 10], [10, 12, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    // Not Winograd, for contrast: an odd output along the taps, and too few channels.
    ['1×3 unpadded to 7 columns (odd: the blocked product)', [1, 8, 6, 9], [5, 8, 1, 3], [1, 1], [0, 0, 0, 0], 1],
    ['3×1 over 4 channels (the blocked product)', [1, 4, 10, 6], [5, 4, 3, 1], [1, 1], [0, 0, 0, 0], 1],
  ];
  for (const c of cases) it(c[0], () => check(c));
});

describe('wasm conv2d Winograd F(2×2, 3×3): 3×3 kernels at unit stride from 16 tiles of 2×2 outputs', () => {
  const cases: Case[] = [
    [
      'padding 1, 7×8 out: odd rows, one vector of four tiles a row',
      [1, 10, 7, 8],
      [6, 10, 3, 3],
      [1, 1],
      [1, 1, 1, 1],
      1,
    ],
    ['as ppocr-det-v4: 96 → 24 channels over 16×16', [1, 96, 16, 16], [24, 96, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    // 9×11 out: four tiles on the lanes, then two one at a time, the last with one column.
    ['unpadded, odd rows and columns', [1, 12, 11, 13], [7, 12, 3, 3], [1, 1], [0, 0, 0, 0], 1],
    [
      '7×7 out: four tiles would write an eighth column, so one at a time',
      [1, 8, 9, 9],
      [5, 8, 3, 3],
      [1, 1],
      [0, 0, 0, 0],
      1,
    ],
    ['padding 1, two images, ten tiles a row', [2, 9, 8, 20], [5, 9, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    ['uneven padding (top 0, left 2, bottom 1, right 0)', [1, 8, 10, 9], [4, 8, 3, 3], [1, 1], [0, 2, 1, 0], 1],
    ['more outputs than inputs: 8 → 20 over 10×10', [1, 8, 10, 10], [20, 8, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    ['64 → 64 over 28×28 (resnet-style)', [1, 64, 28, 28], [64, 64, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    // Too few channels for either Winograd: the blocked product, for contrast.
    ['3×3 over 4 channels', [1, 4, 10, 10], [6, 4, 3, 3], [1, 1], [1, 1, 1, 1], 1],
  ];
  for (const c of cases) it(c[0], () => check(c));
});

/** A case on the wasm dialect with setWasmWinograd(tile), and its float64 reference. */
function runWinograd([, xs, ws, stride, pads]: Case, tile: 2 | 4) {
  setWasmWinograd(tile);
  const x = values(sizeOf(xs), 11);
  const w = values(sizeOf(ws), 12);
  const f32 = (v: number[], shape: number[]) => tensor(v, { shape, dtype: 'float32' });
  const got = withDialect(['wasm'], () => ops.conv2d(f32(x, xs), f32(w, ws), stride, pads)).dataSync();
  return { got, want: conv2dRef(x, xs, w, ws, stride, pads, 1, [1, 1]) };
}

/** The largest error of a runWinograd result, over the largest output. */
function worstError({ got, want }: ReturnType<typeof runWinograd>): number {
  let err = 0;
  let scale = 0;
  for (let i = 0; i < got.length; i++) {
    err = Math.max(err, Math.abs(got[i]! - want.data[i]!));
    scale = Math.max(scale, Math.abs(want.data[i]!));
  }
  return err / scale;
}

describe('wasm conv2d Winograd F(4×4, 3×3), chosen by setWasmWinograd(4), from 64 tiles of 4×4 outputs, 4 a row', () => {
  afterAll(() => setWasmWinograd(2));
  const cases: Case[] = [
    ['32×32 out: eight tiles a row, eight rows of tiles', [1, 8, 32, 32], [5, 8, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    // 33×35: nine tiles a row (the last four overlap the four before), the last tile 3 columns and 1 row wide.
    [
      '33×35 out, padding 1: overlapping last four tiles, clipped rows and columns',
      [1, 9, 33, 35],
      [4, 9, 3, 3],
      [1, 1],
      [1, 1, 1, 1],
      1,
    ],
    ['unpadded, two images, 32×35 out', [2, 16, 34, 37], [7, 16, 3, 3], [1, 1], [0, 0, 0, 0], 1],
    ['32×29 out: the last tile one column wide', [1, 8, 34, 31], [6, 8, 3, 3], [1, 1], [0, 0, 0, 0], 1],
    ['uneven padding (top 2, left 1, bottom 0, right 2)', [1, 12, 31, 30], [6, 12, 3, 3], [1, 1], [2, 1, 0, 2], 1],
    ['64 → 64 over 32×32', [1, 64, 32, 32], [64, 64, 3, 3], [1, 1], [1, 1, 1, 1], 1],
  ];
  for (const c of cases)
    it(c[0], () => {
      const four = runWinograd(c, 4);
      expect(four.got.length).toBe(four.want.data.length);
      assertAllClose(four.got, four.want.data, tolerance('float32'));
      // Its own path: not the bits of F(2×2, 3×3).
      expect(Array.from(four.got)).not.toEqual(Array.from(runWinograd(c, 2).got));
    });

  it('stays within 5e-6 of the output scale at 64 channels, where F(2×2, 3×3) stays within 1e-6', () => {
    const c = cases[cases.length - 1]!;
    expect(worstError(runWinograd(c, 4))).toBeLessThan(5e-6);
    expect(worstError(runWinograd(c, 2))).toBeLessThan(1e-6);
  });

  it('leaves 3×3 convolutions of fewer than 64 tiles, or fewer than four a row, to F(2×2, 3×3)', () => {
    const narrow: Case = ['12 columns out', [1, 8, 40, 12], [5, 8, 3, 3], [1, 1], [1, 1, 1, 1], 1];
    const few: Case = ['28×28 out: 49 tiles', [1, 8, 28, 28], [5, 8, 3, 3], [1, 1], [1, 1, 1, 1], 1];
    for (const c of [narrow, few]) expect(Array.from(runWinograd(c, 4).got)).toEqual(Array.from(runWinograd(c, 2).got));
  });

  it('refuses another tile, naming it', () => {
    expect(() => setWasmWinograd(3 as 2)).toThrow(/setWasmWinograd: tile must be 2 or 4, not 3/);
    expect(wasmWinograd()).toBe(2);
  });
});

describe('wasm conv2d Winograd F(4, 3), chosen by setWasmWinograd(4), from 128 tiles of 4 outputs along the taps', () => {
  afterAll(() => setWasmWinograd(2));
  const cases: Case[] = [
    // Along the width: tiles ordered by column of tiles, four rows a step.
    ['1×3 padding 1, 32×16 out (as oww-embedding)', [1, 24, 32, 16], [20, 24, 1, 3], [1, 1], [0, 1, 0, 1], 1],
    // 29 rows: the last four rows overlap the four before; 18 columns: the last tile keeps 2 of its 4 outputs.
    [
      '1×3 unpadded to 29×18: overlapping rows, a clipped last tile',
      [1, 9, 29, 20],
      [6, 9, 1, 3],
      [1, 1],
      [0, 0, 0, 0],
      1,
    ],
    ['5×3 (kernel rows as input rows), uneven padding', [1, 8, 40, 17], [5, 8, 5, 3], [1, 1], [2, 1, 1, 0], 1],
    // Along the height: four columns a step (18 columns: the last four overlap), 34 rows out: the last tile keeps 2.
    ['3×1 unpadded to 34×18, two images', [2, 16, 36, 18], [12, 16, 3, 1], [1, 1], [0, 0, 0, 0], 1],
    ['3×1 padding top and bottom to 64×8', [1, 10, 64, 8], [7, 10, 3, 1], [1, 1], [1, 0, 1, 0], 1],
  ];
  for (const c of cases)
    it(c[0], () => {
      const four = runWinograd(c, 4);
      expect(four.got.length).toBe(four.want.data.length);
      assertAllClose(four.got, four.want.data, tolerance('float32'));
      // Its own path: not the bits of F(2, 3) or the blocked product.
      expect(Array.from(four.got)).not.toEqual(Array.from(runWinograd(c, 2).got));
    });

  it('stays within 3e-6 of the output scale at 256 channels, where F(2, 3) stays within 1e-6', () => {
    for (const c of [
      ['1×3', [1, 256, 32, 16], [32, 256, 1, 3], [1, 1], [0, 1, 0, 1], 1],
      ['3×1', [1, 256, 34, 16], [32, 256, 3, 1], [1, 1], [0, 0, 0, 0], 1],
    ] as Case[]) {
      expect(worstError(runWinograd(c, 4)), c[0]).toBeLessThan(3e-6);
      expect(worstError(runWinograd(c, 2)), c[0]).toBeLessThan(1e-6);
    }
  });

  it('leaves 1-D convolutions of fewer than 128 tiles, or fewer than four rows across, to F(2, 3)', () => {
    const few: Case = ['30×16 out: 120 tiles', [1, 8, 30, 16], [5, 8, 1, 3], [1, 1], [0, 1, 0, 1], 1];
    const thin: Case = ['3 rows of 200 columns', [1, 8, 3, 202], [5, 8, 1, 3], [1, 1], [0, 0, 0, 0], 1];
    for (const c of [few, thin]) expect(Array.from(runWinograd(c, 4).got)).toEqual(Array.from(runWinograd(c, 2).got));
  });
});

describe('wasm conv_transpose: two taps a row at column stride 2 (kx = 0 and 1 interleave into each output row)', () => {
  /** float64 transposed convolution: each input pixel times each tap, added where it lands (padding [t, l, b, r]). */
  function convTransposeRef(
    x: number[],
    [n, c, h, wd]: number[],
    w: number[],
    [, og, kh, kw]: number[],
    bias: number[],
    [sh, sw]: number[],
    [pt, pl, pb, pr]: number[],
    groups: number,
  ) {
    const [oh, ow] = [(h - 1) * sh - pt - pb + kh, (wd - 1) * sw - pl - pr + kw];
    const o = og! * groups;
    const cg = c! / groups;
    const y = new Array<number>(n! * o * oh * ow).fill(0);
    for (let b = 0; b < n!; b++)
      for (let oc = 0; oc < o; oc++) y.fill(bias[oc]!, (b * o + oc) * oh * ow, (b * o + oc + 1) * oh * ow);
    for (let b = 0; b < n!; b++)
      for (let ci = 0; ci < c!; ci++)
        for (let q = 0; q < og!; q++)
          for (let iy = 0; iy < h!; iy++)
            for (let ix = 0; ix < wd!; ix++)
              for (let ky = 0; ky < kh!; ky++)
                for (let kx = 0; kx < kw!; kx++) {
                  const [yy, xx] = [iy * sh! - pt! + ky, ix * sw! - pl! + kx];
                  if (yy < 0 || yy >= oh || xx < 0 || xx >= ow) continue;
                  const oc = Math.floor(ci / cg) * og! + q;
                  y[((b * o + oc) * oh + yy) * ow + xx]! +=
                    x[((b * c! + ci) * h! + iy) * wd! + ix]! * w[((ci * og! + q) * kh! + ky) * kw! + kx]!;
                }
    return { data: y, shape: [n!, o, oh, ow] };
  }
  const cases: [string, number[], number[], number[], number[], number][] = [
    // name, x, w, stride, padding [t, l, b, r], groups
    ['2×2 stride 2 over 5×6 (a vector of columns, then two)', [1, 3, 5, 6], [3, 4, 2, 2], [2, 2], [0, 0, 0, 0], 1],
    ['2×2 stride 2 as ppocr-det-v4: 24 → 24 over 16×16', [1, 24, 16, 16], [24, 24, 2, 2], [2, 2], [0, 0, 0, 0], 1],
    [
      '3×2, row stride 1 padded top and bottom, 2 groups, 2 images',
      [2, 4, 3, 5],
      [4, 1, 3, 2],
      [1, 2],
      [1, 0, 1, 0],
      2,
    ],
  ];
  for (const [name, xs, ws, stride, pads, groups] of cases)
    it(name, () => {
      const x = values(sizeOf(xs), 31);
      const w = values(sizeOf(ws), 32);
      const bias = values(ws[1]! * groups, 33);
      const want = convTransposeRef(x, xs, w, ws, bias, stride, pads, groups);
      const got = withDialect(['wasm'], () =>
        ops.convTranspose(
          tensor(x, { shape: xs, dtype: 'float32' }),
          tensor(w, { shape: ws, dtype: 'float32' }),
          tensor(bias, { shape: [bias.length], dtype: 'float32' }),
          stride,
          pads,
          null,
          null,
          groups,
        ),
      );
      expect(got.shape).toEqual(want.shape);
      assertAllClose(got.dataSync(), want.data, tolerance('float32'));
    });
});
