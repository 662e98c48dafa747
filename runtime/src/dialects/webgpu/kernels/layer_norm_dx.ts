// WebGPU kernel of raf.op.layer_norm_dx (specs/nn/layer_norm_dx.yaml): dx = inv·(g - mean(g) - x̂·mean(g·x̂)) with g = dy·scale, per row.

import type { LayerNormDxKernel } from '../../../generated/bridge/layer_norm_dx.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, launch, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { normParams, ROW_INDEX, SCALE_STRIDES, SQUARES, TOTAL, WORDS } from '../norm.ts';
import { eachElement, foldLines, foldScratch, laneGroup, lanesFor, rowEntry, type RowFold } from '../row-fold.ts';
import { allocGpu } from '../storage.ts';

const position = (k: string) => `base + ${k}`;
const g = `dy[at] * scale[row_index(k, ${SCALE_STRIDES}u)]`;
const GRADIENT_SUMS: RowFold[] = [
  { name: 'g_total', fold: 'sum', term: g },
  { name: 'gx_total', fold: 'sum', term: `${g} * (x[at] - mean) * inv` },
];

const source = (lanes: number) => `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
${paramsWgsl(4, WORDS)}
${foldScratch([TOTAL, SQUARES, ...GRADIENT_SUMS], lanes).join('\n')}
${ROW_INDEX}
${rowEntry(lanes).join('\n')}
${[
  'if (row >= pu(0u)) { return; }',
  'let d = pu(1u);',
  'let n = f32(d);',
  'let base = row * d;',
  ...foldLines([TOTAL], lanes, 'd', position),
  'let mean = total / n;',
  ...foldLines([SQUARES], lanes, 'd', position),
  'let inv = inverseSqrt(squares / n + pf(2u));',
  ...foldLines(GRADIENT_SUMS, lanes, 'd', position),
  'let g_mean = g_total / n;',
  'let gx_mean = gx_total / n;',
  ...eachElement(lanes, 'd', position, [`out[at] = inv * (${g} - g_mean - (x[at] - mean) * inv * gx_mean);`]),
]
  .map((l) => `  ${l}`)
  .join('\n')}
}`;

export const layerNormDxWebgpu: WebGpuBuilder<LayerNormDxKernel> = (_attrs, out, { x, scale, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, dy)) return null;
  const pipelineFor = (lanes: number) =>
    gpu.pipelines.getPipelineSync(pipelineKey('layer_norm_dx', 'f32', ...(lanes > 1 ? [`l${lanes}`] : [])), () =>
      source(lanes),
    );
  return ({ x, scale, dy }, { axis, epsilon }, kout) => {
    const result = allocGpu(gpu, kout);
    const uniforms = normParams(x, axis, epsilon, scale, null);
    const lanes = lanesFor(uniforms[1]!);
    const rows = uniforms[0]!;
    launch(gpu, pipelineFor(lanes), [x, scale, dy, result], uniforms, rows * lanes, 'layer_norm_dx', laneGroup(lanes));
    return result;
  };
};
