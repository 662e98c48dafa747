// WebGPU kernel of raf.op.conv2d_dx (specs/nn/conv2d_dx.yaml): one invocation per input element gathers the outputs its taps fed, so no atomics.

import type { Conv2dDxKernel } from '../../../generated/bridge/conv2d_dx.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

const SOURCE = windowSource(
  ['wt', 'dy', 'dx'],
  `
  let ix = e % g.w;
  let iy = (e / g.w) % g.h;
  let c = (e / (g.w * g.h)) % g.c;
  let n = e / (g.w * g.h * g.c);
  let cg = g.c / g.groups;
  let og = g.o / g.groups;
  let ci = c % cg;
  let o0 = (c / cg) * og;
  var acc = 0.0;
  for (var ky = 0; ky < g.kh; ky++) {
    let oy = source_pos(iy, ky, g.pad_top, g.sh, g.dh, g.oh);
    if (oy < 0) { continue; }
    for (var kx = 0; kx < g.kw; kx++) {
      let ox = source_pos(ix, kx, g.pad_left, g.sw, g.dw, g.ow);
      if (ox < 0) { continue; }
      for (var o = o0; o < o0 + og; o++) {
        acc += dy[((n * g.o + o) * g.oh + oy) * g.ow + ox] * wt[((o * cg + ci) * g.kh + ky) * g.kw + kx];
      }
    }
  }
  dx[i] = acc;`,
);

export const conv2dDxWebgpu: WebGpuBuilder<Conv2dDxKernel> = (_attrs, out, { x, w, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, w, dy)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('conv2d_dx', 'f32'), () => SOURCE);
  return ({ x, w, dy }, attrs, kout) =>
    runWindow(gpu, pipeline, 'conv2d_dx', x, w.shape, attrs, [w, dy], kout, sizeOfType(kout));
};
