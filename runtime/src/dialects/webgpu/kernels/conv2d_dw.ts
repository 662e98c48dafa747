// WebGPU kernel of raf.op.conv2d_dw (specs/nn/conv2d_dw.yaml): one invocation per weight element sums over batch and output positions.

import type { Conv2dDwKernel } from '../../../generated/bridge/conv2d_dw.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

const SOURCE = windowSource(
  ['x', 'dy', 'dw'],
  `
  let kx = e % g.kw;
  let ky = (e / g.kw) % g.kh;
  let cg = g.c / g.groups;
  let ci = (e / (g.kw * g.kh)) % cg;
  let o = e / (g.kw * g.kh * cg);
  let c = (o / (g.o / g.groups)) * cg + ci;
  var acc = 0.0;
  for (var n = 0; n < g.n; n++) {
    for (var oy = 0; oy < g.oh; oy++) {
      let iy = oy * g.sh - g.pad_top + ky * g.dh;
      if (iy < 0 || iy >= g.h) { continue; }
      for (var ox = 0; ox < g.ow; ox++) {
        let ix = ox * g.sw - g.pad_left + kx * g.dw;
        if (ix < 0 || ix >= g.w) { continue; }
        acc += dy[((n * g.o + o) * g.oh + oy) * g.ow + ox] * x[((n * g.c + c) * g.h + iy) * g.w + ix];
      }
    }
  }
  dw[i] = acc;`,
);

export const conv2dDwWebgpu: WebGpuBuilder<Conv2dDwKernel> = (_attrs, out, { x, w, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, w, dy)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('conv2d_dw', 'f32'), () => SOURCE);
  return ({ x, w, dy }, attrs, kout) =>
    runWindow(gpu, pipeline, 'conv2d_dw', x, w.shape, attrs, [x, dy], kout, sizeOfType(kout));
};
