// WebGPU kernel of raf.op.max_pool2d (specs/nn/max_pool2d.yaml): the maximum over each window's in-image taps.

import type { MaxPool2dKernel } from '../../../generated/bridge/max_pool2d.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { isNanWgsl } from '../row-fold.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

const SOURCE = windowSource(
  ['x', 'y'],
  `
  let ox = e % g.ow;
  let oy = (e / g.ow) % g.oh;
  let p = e / (g.ow * g.oh);
  var best = 0.0;
  var found = false;
  for (var ky = 0; ky < g.kh; ky++) {
    let iy = oy * g.sh - g.pad_top + ky;
    if (iy < 0 || iy >= g.h) { continue; }
    for (var kx = 0; kx < g.kw; kx++) {
      let ix = ox * g.sw - g.pad_left + kx;
      if (ix < 0 || ix >= g.w) { continue; }
      let v = x[(p * g.h + iy) * g.w + ix];
      // NaN propagates, as on the CPU: once best is NaN no number replaces it.
      if (!found || (!${isNanWgsl('best')} && (${isNanWgsl('v')} || v > best))) { best = v; found = true; }
    }
  }
  // A window wholly on padding gives -inf, like the CPU. WGSL rejects an infinite constant, even from bitcast,
  // so the bits are formed at run time (pu(0u) * 0u is zero but not a constant expression).
  if (!found) { best = bitcast<f32>(0xff800000u | (pu(0u) * 0u)); }
  y[i] = best;`,
);

export const maxPool2dWebgpu: WebGpuBuilder<MaxPool2dKernel> = (_attrs, out, { x }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('max_pool2d', 'f32'), () => SOURCE);
  return ({ x }, attrs, kout) => runWindow(gpu, pipeline, 'max_pool2d', x, null, attrs, [x], kout, sizeOfType(kout));
};
