// WebGPU kernel of raf.op.conv2d (specs/nn/conv2d.yaml): direct convolution, one invocation per output element; padded taps read as zero.

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

export const conv2dWebgpu: WebGpuBuilder<Conv2dKernel> = (_attrs, out, { x, w }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, w)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('conv2d', 'f32'), () => SOURCE);
  return ({ x, w }, attrs, kout) =>
    runWindow(gpu, pipeline, 'conv2d', x, w.shape, attrs, [x, w], kout, sizeOfType(kout));
};
