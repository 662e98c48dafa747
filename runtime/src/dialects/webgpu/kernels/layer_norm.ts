// WebGPU kernel of raf.op.layer_norm (specs/nn/layer_norm.yaml): two-pass mean and centered variance per row, like the CPU; a long row is shared by a workgroup.

import type { LayerNormKernel } from '../../../generated/bridge/layer_norm.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, launch, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { BIAS_STRIDES, normParams, ROW_INDEX, SCALE_STRIDES, SQUARES, TOTAL, WORDS } from '../norm.ts';
import { eachElement, foldLines, foldScratch, laneGroup, lanesFor, rowEntry } from '../row-fold.ts';
import { allocGpu } from '../storage.ts';

const position = (k: string) => `base + ${k}`;

const source = (lanes: number) => `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
${paramsWgsl(4, WORDS)}
${foldScratch([TOTAL, SQUARES], lanes).join('\n')}
${ROW_INDEX}
${rowEntry(lanes).join('\n')}
${[
  'if (row >= pu(0u)) { return; }',
  'let d = pu(1u);',
  'let base = row * d;',
  ...foldLines([TOTAL], lanes, 'd', position),
  'let mean = total / f32(d);',
  ...foldLines([SQUARES], lanes, 'd', position),
  'let inv = inverseSqrt(squares / f32(d) + pf(2u));',
  ...eachElement(lanes, 'd', position, [
    `out[at] = (x[at] - mean) * inv * scale[row_index(k, ${SCALE_STRIDES}u)] + bias[row_index(k, ${BIAS_STRIDES}u)];`,
  ]),
]
  .map((l) => `  ${l}`)
  .join('\n')}
}`;

export const layerNormWebgpu: WebGpuBuilder<LayerNormKernel> = (_attrs, out, { x, scale, bias }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, bias)) return null;
  const pipelineFor = (lanes: number) =>
    gpu.pipelines.getPipelineSync(pipelineKey('layer_norm', 'f32', ...(lanes > 1 ? [`l${lanes}`] : [])), () =>
      source(lanes),
    );
  return ({ x, scale, bias }, { axis, epsilon }, kout) => {
    const result = allocGpu(gpu, kout);
    const uniforms = normParams(x, axis, epsilon, scale, bias);
    const lanes = lanesFor(uniforms[1]!);
    const rows = uniforms[0]!;
    launch(gpu, pipelineFor(lanes), [x, scale, bias, result], uniforms, rows * lanes, 'layer_norm', laneGroup(lanes));
    return result;
  };
};
