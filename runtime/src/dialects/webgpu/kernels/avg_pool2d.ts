// WebGPU kernel of raf.op.avg_pool2d (specs/nn/avg_pool2d.yaml): window sums over in-image taps, divided as count_include_pad says.

import type { AvgPool2dKernel } from '../../../generated/bridge/avg_pool2d.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

const SOURCE = windowSource(
  ['x', 'y'],
  `
  let ox = e % g.ow;
  let oy = (e / g.ow) % g.oh;
  let p = e / (g.ow * g.oh);
  var acc = 0.0;
  for (var ky = 0; ky < g.kh; ky++) {
    let iy = oy * g.sh - g.pad_top + ky;
    if (iy < 0 || iy >= g.h) { continue; }
    for (var kx = 0; kx < g.kw; kx++) {
      let ix = ox * g.sw - g.pad_left + kx;
      if (ix < 0 || ix >= g.w) { continue; }
      acc += x[(p * g.h + iy) * g.w + ix];
    }
  }
  y[i] = acc / pool_count(g, oy, ox);`,
);

export const avgPool2dWebgpu: WebGpuBuilder<AvgPool2dKernel> = (_attrs, out, { x }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('avg_pool2d', 'f32'), () => SOURCE);
  return ({ x }, attrs, kout) => runWindow(gpu, pipeline, 'avg_pool2d', x, null, attrs, [x], kout, sizeOfType(kout));
};
