// The wasm dialect's conv2d_dx and conv2d_dw (issue 43): the products over im2col / col2im at the shapes of the
// training bench's CNN and of strided, padded, dilated and grouped convolutions, against a float64 loop written here
// from the definition (every tap of conv2d sends dy·w back to the input it read, and adds dy·x to the weight it used).
// conv2d_dw's float32 path puts several images in one product: a small chunk size makes it take several chunks.

import { afterEach, describe, expect, it } from 'vitest';
import { setConv2dDwChunkFloats } from '../../runtime/src/dialects/wasm/kernels/conv2d_dw.ts';
import { ops, tensor, withDialect, type DType } from '../../runtime/src/index.ts';
import { lcgValues as values } from '../support/reference.ts';

interface Conv {
  readonly x: readonly [number, number, number, number];
  readonly w: readonly [number, number, number, number];
  readonly stride: readonly [number, number];
  readonly pads: readonly [number, number, number, number];
  readonly dil: readonly [number, number];
  readonly groups: number;
}

const outSize = (c: Conv): [number, number] => {
  const [, , h, wd] = c.x;
  const [, , kh, kw] = c.w;
  const oh = Math.floor((h + c.pads[0] + c.pads[2] - (kh - 1) * c.dil[0] - 1) / c.stride[0]) + 1;
  const ow = Math.floor((wd + c.pads[1] + c.pads[3] - (kw - 1) * c.dil[1] - 1) / c.stride[1]) + 1;
  return [oh, ow];
};

/** dx and dw of y = conv2d(x, w) for the cotangent dy, in float64, one tap at a time. */
function reference(c: Conv, x: number[], w: number[], dy: number[]): { dx: Float64Array; dw: Float64Array } {
  const [n, ch, h, wd] = c.x;
  const [o, cg, kh, kw] = c.w;
  const [oh, ow] = outSize(c);
  const og = o / c.groups;
  const dx = new Float64Array(x.length);
  const dw = new Float64Array(w.length);
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < o; oc++)
      for (let ci = 0; ci < cg; ci++) {
        const ic = Math.floor(oc / og) * cg + ci;
        for (let oy = 0; oy < oh; oy++)
          for (let ox = 0; ox < ow; ox++) {
            const g = dy[((b * o + oc) * oh + oy) * ow + ox]!;
            for (let ky = 0; ky < kh; ky++) {
              const iy = oy * c.stride[0] - c.pads[0] + ky * c.dil[0];
              if (iy < 0 || iy >= h) continue;
              for (let kx = 0; kx < kw; kx++) {
                const ix = ox * c.stride[1] - c.pads[1] + kx * c.dil[1];
                if (ix < 0 || ix >= wd) continue;
                const xi = ((b * ch + ic) * h + iy) * wd + ix;
                const wi = ((oc * cg + ci) * kh + ky) * kw + kx;
                dx[xi] += g * w[wi]!;
                dw[wi] += g * x[xi]!;
              }
            }
          }
      }
  return { dx, dw };
}

function close(got: ArrayLike<number>, want: Float64Array, rel: number): void {
  expect(got.length).toBe(want.length);
  let scale = 0;
  for (const v of want) scale = Math.max(scale, Math.abs(v));
  expect(scale).toBeGreaterThan(0);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
  expect(worst).toBeLessThanOrEqual(rel * scale);
}

function check(c: Conv, dtype: DType): void {
  const [oh, ow] = outSize(c);
  const x = values(
    c.x.reduce((a, b) => a * b),
    3,
  );
  const w = values(
    c.w.reduce((a, b) => a * b),
    5,
  );
  const dy = values(c.x[0] * c.w[0] * oh * ow, 7);
  const want = reference(c, x, w, dy);
  const [tx, tw, tdy] = [
    tensor(x, { shape: [...c.x], dtype }),
    tensor(w, { shape: [...c.w], dtype }),
    tensor(dy, { shape: [c.x[0], c.w[0], oh, ow], dtype }),
  ];
  const args = [[...c.stride], [...c.pads], [...c.dil], c.groups] as const;
  const [dx, dw] = withDialect(['wasm'], () => [
    ops.conv2dDx(tx, tw, tdy, ...args),
    ops.conv2dDw(tx, tw, tdy, ...args),
  ]);
  const rel = dtype === 'float64' ? 1e-12 : 2e-5;
  close(dx.dataSync(), want.dx, rel);
  close(dw.dataSync(), want.dw, rel);
}

const conv = (
  x: Conv['x'],
  w: Conv['w'],
  stride: Conv['stride'] = [1, 1],
  pads: Conv['pads'] = [0, 0, 0, 0],
  groups = 1,
  dil: Conv['dil'] = [1, 1],
): Conv => ({ x, w, stride, pads, dil, groups });

const CASES: [string, Conv][] = [
  [
    "the bench CNN's first layer: 1 → 8, 3×3 padding 1 over 28×28, batch 8",
    conv([8, 1, 28, 28], [8, 1, 3, 3], [1, 1], [1, 1, 1, 1]),
  ],
  ['its second layer: 8 → 16, 3×3 over 14×14, batch 8', conv([8, 8, 14, 14], [16, 8, 3, 3])],
  ['stride 2, padding on two sides, 3 outputs', conv([3, 5, 9, 8], [3, 5, 3, 2], [2, 2], [1, 0, 2, 1])],
  ['dilation 2 × 1, 2 groups', conv([2, 6, 9, 7], [4, 3, 3, 3], [1, 1], [1, 1, 1, 1], 2, [2, 1])],
  ['depthwise 3×3 stride 2', conv([2, 4, 8, 8], [4, 1, 3, 3], [2, 2], [1, 1, 1, 1], 4)],
  ['one output row: 5×5 kernel over 5 rows', conv([2, 2, 5, 11], [7, 2, 5, 5])],
];

describe('wasm conv2d_dx and conv2d_dw against a float64 loop', () => {
  afterEach(() => void setConv2dDwChunkFloats(1 << 22));
  for (const [name, c] of CASES) {
    it(`float32: ${name}`, () => check(c, 'float32'));
    it(`float64: ${name}`, () => check(c, 'float64'));
  }
  it('float32 conv2d_dw over several chunks of images (one and three per product)', () => {
    const c = CASES[2]![1];
    const [oh, ow] = outSize(c);
    const taps = c.w[1] * c.w[2] * c.w[3];
    setConv2dDwChunkFloats(taps * oh * ow);
    check(c, 'float32');
    setConv2dDwChunkFloats(2 * taps * oh * ow);
    check(conv([5, 5, 9, 8], c.w, c.stride, c.pads), 'float32');
    setConv2dDwChunkFloats(taps * oh * ow);
    check(conv([3, 6, 9, 7], [4, 3, 3, 3], [1, 1], [1, 1, 1, 1], 2, [2, 1]), 'float32');
  });
});
