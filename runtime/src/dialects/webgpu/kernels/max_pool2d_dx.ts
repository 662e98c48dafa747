// WebGPU kernel of raf.op.max_pool2d_dx (specs/nn/max_pool2d_dx.yaml): an input element gathers dy from every window whose first maximum it is.

import type { MaxPool2dDxKernel } from '../../../generated/bridge/max_pool2d_dx.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

// Re-finding each window's argmax (row-major, strict >) instead of scattering keeps ties on the tap the CPU picks.
const SOURCE = windowSource(
  ['x', 'dy', 'dx'],
  `
  let ix = e % g.w;
  let iy = (e / g.w) % g.h;
  let p = e / (g.w * g.h);
  var acc = 0.0;
  for (var ky = 0; ky < g.kh; ky++) {
    let oy = source_pos(iy, ky, g.pad_top, g.sh, 1, g.oh);
    if (oy < 0) { continue; }
    for (var kx = 0; kx < g.kw; kx++) {
      let ox = source_pos(ix, kx, g.pad_left, g.sw, 1, g.ow);
      if (ox < 0) { continue; }
      var arg = -1;
      var best = 0.0;
      for (var qy = 0; qy < g.kh; qy++) {
        let ty = oy * g.sh - g.pad_top + qy;
        if (ty < 0 || ty >= g.h) { continue; }
        for (var qx = 0; qx < g.kw; qx++) {
          let tx = ox * g.sw - g.pad_left + qx;
          if (tx < 0 || tx >= g.w) { continue; }
          let t = (p * g.h + ty) * g.w + tx;
          if (arg < 0 || x[t] > best) { arg = t; best = x[t]; }
        }
      }
      if (arg == e) { acc += dy[(p * g.oh + oy) * g.ow + ox]; }
    }
  }
  dx[i] = acc;`,
);

export const maxPool2dDxWebgpu: WebGpuBuilder<MaxPool2dDxKernel> = (_attrs, out, { x, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, dy)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('max_pool2d_dx', 'f32'), () => SOURCE);
  return ({ x, dy }, attrs, kout) =>
    runWindow(gpu, pipeline, 'max_pool2d_dx', x, null, attrs, [x, dy], kout, sizeOfType(kout));
};
