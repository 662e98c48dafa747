// WebGPU kernel of raf.op.conv2d (specs/nn/conv2d.yaml): direct convolution, one invocation per output element (with groups) or per 4 × 4 block of channels and columns; padded taps read as zero.

import type { Conv2dKernel } from '../../../generated/bridge/conv2d.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

const SOURCE = windowSource(
  ['x', 'wt', 'y'],
  `
  let ox = e % g.ow;
  let oy = (e / g.ow) % g.oh;
  let o = (e / (g.ow * g.oh)) % g.o;
  let n = e / (g.ow * g.oh * g.o);
  let cg = g.c / g.groups;
  let c0 = (o / (g.o / g.groups)) * cg;
  var acc = 0.0;
  for (var ci = 0; ci < cg; ci++) {
    for (var ky = 0; ky < g.kh; ky++) {
      let iy = oy * g.sh - g.pad_top + ky * g.dh;
      if (iy < 0 || iy >= g.h) { continue; }
      for (var kx = 0; kx < g.kw; kx++) {
        let ix = ox * g.sw - g.pad_left + kx * g.dw;
        if (ix < 0 || ix >= g.w) { continue; }
        acc += x[((n * g.c + c0 + ci) * g.h + iy) * g.w + ix] * wt[((o * cg + ci) * g.kh + ky) * g.kw + kx];
      }
    }
  }
  y[i] = acc;`,
);

/**
 * Without groups: an invocation computes four output channels at four adjacent columns, so each input tap it loads
 * serves four channels and each weight four columns (a quarter of the loads per product). Edge blocks skip the
 * channels and columns past the output's; each output sums in the same order as above.
 */
const BLOCKED_SOURCE = windowSource(
  ['x', 'wt', 'y'],
  `
  let owb = (g.ow + 3) / 4;
  let ob = (g.o + 3) / 4;
  let ox0 = (e % owb) * 4;
  let oy = (e / owb) % g.oh;
  let o0 = ((e / (owb * g.oh)) % ob) * 4;
  let n = e / (owb * g.oh * ob);
  let taps = g.c * g.kh * g.kw;
  // Channels past the output's read channel o0's weights (never stored); columns past it are never stored either.
  let wo = vec4<i32>(o0, min(o0 + 1, g.o - 1), min(o0 + 2, g.o - 1), min(o0 + 3, g.o - 1)) * taps;
  var acc: array<vec4<f32>, 4>;
  for (var ci = 0; ci < g.c; ci++) {
    let xc = (n * g.c + ci) * g.h;
    for (var ky = 0; ky < g.kh; ky++) {
      let iy = oy * g.sh - g.pad_top + ky * g.dh;
      if (iy < 0 || iy >= g.h) { continue; }
      for (var kx = 0; kx < g.kw; kx++) {
        let t = (ci * g.kh + ky) * g.kw + kx;
        let wv = vec4<f32>(wt[wo.x + t], wt[wo.y + t], wt[wo.z + t], wt[wo.w + t]);
        for (var j = 0; j < 4; j++) {
          let ix = (ox0 + j) * g.sw - g.pad_left + kx * g.dw;
          if (ix >= 0 && ix < g.w) { acc[j] += wv * x[(xc + iy) * g.w + ix]; }
        }
      }
    }
  }
  for (var q = 0; q < 4; q++) {
    if (o0 + q >= g.o) { break; }
    for (var j = 0; j < 4; j++) {
      if (ox0 + j < g.ow) { y[((n * g.o + o0 + q) * g.oh + oy) * g.ow + ox0 + j] = acc[j][q]; }
    }
  }`,
);

export const conv2dWebgpu: WebGpuBuilder<Conv2dKernel> = ({ groups }, out, { x, w }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, w)) return null;
  const blocked = groups === 1;
  const pipeline = blocked
    ? gpu.pipelines.getPipelineSync(pipelineKey('conv2d', 'f32', 'b4x4'), () => BLOCKED_SOURCE)
    : gpu.pipelines.getPipelineSync(pipelineKey('conv2d', 'f32'), () => SOURCE);
  return ({ x, w }, attrs, kout) => {
    // One invocation per output element, or per block of four channels by four columns.
    const [n, o, oh, ow] = kout.shape as [number, number, number, number];
    const total = blocked ? n * Math.ceil(o / 4) * oh * Math.ceil(ow / 4) : sizeOfType(kout);
    return runWindow(gpu, pipeline, 'conv2d', x, w.shape, attrs, [x, w], kout, total);
  };
};
