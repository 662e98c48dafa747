// WebGPU conv2d on its blocked pipeline (no groups: four output channels by four columns per invocation) and on the
// per-element one (groups), with edge blocks, strides, dilations and uneven padding, against float64 computed here.
import { describe, expect, it } from 'vitest';

import { ops, randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

interface Geometry {
  x: [number, number, number, number];
  w: [number, number, number, number];
  stride: [number, number];
  padding: [number, number, number, number];
  dilation: [number, number];
  groups: number;
}

function reference(x: Tensor, w: Tensor, g: Geometry): { data: Float64Array; shape: number[] } {
  const [X, Wt] = [x.dataSync(), w.dataSync()];
  const [n, c, h, wd] = g.x;
  const [o, cg, kh, kw] = g.w;
  const [top, left, bottom, right] = g.padding;
  const oh = Math.floor((h + top + bottom - (g.dilation[0] * (kh - 1) + 1)) / g.stride[0]) + 1;
  const ow = Math.floor((wd + left + right - (g.dilation[1] * (kw - 1) + 1)) / g.stride[1]) + 1;
  const perGroup = o / g.groups;
  const out = new Float64Array(n * o * oh * ow);
  for (let b = 0; b < n; b++)
    for (let oc = 0; oc < o; oc++)
      for (let y = 0; y < oh; y++)
        for (let xo = 0; xo < ow; xo++) {
          let s = 0;
          for (let ci = 0; ci < cg; ci++)
            for (let ky = 0; ky < kh; ky++)
              for (let kx = 0; kx < kw; kx++) {
                const iy = y * g.stride[0] - top + ky * g.dilation[0];
                const ix = xo * g.stride[1] - left + kx * g.dilation[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                const cin = Math.floor(oc / perGroup) * cg + ci;
                s += X[((b * c + cin) * h + iy) * wd + ix]! * Wt[((oc * cg + ci) * kh + ky) * kw + kx]!;
              }
          out[((b * o + oc) * oh + y) * ow + xo] = s;
        }
  return { data: out, shape: [n, o, oh, ow] };
}

const CASES: (Geometry & { name: string })[] = [
  // 70 channels and 29 columns: the last block of each is partial.
  {
    name: '3×3 pad 1, 70 channels',
    x: [2, 5, 9, 29],
    w: [70, 5, 3, 3],
    stride: [1, 1],
    padding: [1, 1, 1, 1],
    dilation: [1, 1],
    groups: 1,
  },
  {
    name: 'stride 2, dilation 2, uneven padding',
    x: [1, 6, 17, 23],
    w: [9, 6, 3, 2],
    stride: [2, 2],
    padding: [0, 2, 1, 3],
    dilation: [2, 2],
    groups: 1,
  },
  {
    name: 'pointwise, one channel out',
    x: [1, 8, 5, 6],
    w: [1, 8, 1, 1],
    stride: [1, 1],
    padding: [0, 0, 0, 0],
    dilation: [1, 1],
    groups: 1,
  },
  {
    name: 'groups 3 (per-element pipeline)',
    x: [1, 6, 8, 7],
    w: [9, 2, 3, 3],
    stride: [1, 2],
    padding: [1, 1, 1, 1],
    dilation: [1, 1],
    groups: 3,
  },
];

describe('webgpu conv2d against float64', () => {
  it.for(CASES)('$name', async (g, ctx) => {
    const gpu = needGpu(ctx);
    const x = randomUniform(g.x, { seed: 1, low: -1, high: 1 });
    const w = randomUniform(g.w, { seed: 2, low: -1, high: 1 });
    const want = reference(x, w, g);
    const [xg, wg] = [await x.to('webgpu'), await w.to('webgpu')];
    const y = ops.conv2d(xg, wg, g.stride, g.padding, g.dilation, g.groups);
    expect(y.shape).toEqual(want.shape);
    const got = await y.data();
    let worst = 0;
    for (let i = 0; i < want.data.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want.data[i]!));
    expect(worst).toBeLessThan(1e-4);
    for (const t of [xg, wg, y]) t.dispose();
    expect(gpu.uncapturedErrors).toEqual([]);
  });

  it('takes the blocked pipeline without groups and the per-element one with them', (ctx) => {
    const gpu = needGpu(ctx);
    const keys = gpu.pipelines.compiledPipelineKeys().map((k) => k.replace(/#main$/, ''));
    expect(keys).toEqual(expect.arrayContaining(['webgpu:conv2d|f32|b4x4', 'webgpu:conv2d|f32']));
  });
});
