// WebGPU kernel of raf.op.avg_pool2d_dx (specs/nn/avg_pool2d_dx.yaml): each input element gathers dy / count from every window holding it.

import type { AvgPool2dDxKernel } from '../../../generated/bridge/avg_pool2d_dx.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

const SOURCE = windowSource(
  ['dy', 'dx'],
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
      acc += dy[(p * g.oh + oy) * g.ow + ox] / pool_count(g, oy, ox);
    }
  }
  dx[i] = acc;`,
);

export const avgPool2dDxWebgpu: WebGpuBuilder<AvgPool2dDxKernel> = (_attrs, out, { x, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, dy)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('avg_pool2d_dx', 'f32'), () => SOURCE);
  return ({ x, dy }, attrs, kout) =>
    runWindow(gpu, pipeline, 'avg_pool2d_dx', x, null, attrs, [dy], kout, sizeOfType(kout));
};
