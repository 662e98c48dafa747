// WebGPU kernel of raf.op.layer_norm_dx (specs/nn/layer_norm_dx.yaml): dx = inv·(g - mean(g) - x̂·mean(g·x̂)) with g = dy·scale, per row.

import type { LayerNormDxKernel } from '../../../generated/bridge/layer_norm_dx.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, type WebGpuBuilder } from '../kernel.ts';
import { eachRowElement, normParams, normSource, runNorm, SCALE_STRIDES } from '../norm.ts';
import type { RowFold } from '../row-fold.ts';

const g = `dy[at] * scale[row_index(k, ${SCALE_STRIDES}u)]`;
const GRADIENT_SUMS: RowFold[] = [
  { name: 'g_total', fold: 'sum', term: g },
  { name: 'gx_total', fold: 'sum', term: `${g} * (x[at] - mean) * inv` },
];

const source = (lanes: number) =>
  normSource('dy', lanes, GRADIENT_SUMS, [
    'let g_mean = g_total / n;',
    'let gx_mean = gx_total / n;',
    ...eachRowElement(lanes, `inv * (${g} - g_mean - (x[at] - mean) * inv * gx_mean)`),
  ]);

export const layerNormDxWebgpu: WebGpuBuilder<LayerNormDxKernel> = (_attrs, out, { x, scale, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, dy)) return null;
  return ({ x, scale, dy }, { axis, epsilon }, kout) =>
    runNorm(gpu, 'layer_norm_dx', source, [x, scale, dy], normParams(x, axis, epsilon, scale, null), kout);
};
