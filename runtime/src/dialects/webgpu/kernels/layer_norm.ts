// WebGPU kernel of raf.op.layer_norm (specs/nn/layer_norm.yaml): two-pass mean and centered variance per row, like the CPU.

import type { LayerNormKernel } from '../../../generated/bridge/layer_norm.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, FLAT_INDEX, launch, MAIN_1D, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { BIAS_STRIDES, normParams, ROW_INDEX, SCALE_STRIDES, WORDS } from '../norm.ts';
import { allocGpu } from '../storage.ts';

const SOURCE = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
${paramsWgsl(4, WORDS)}
${ROW_INDEX}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let d = pu(1u);
  let base = i * d;
  var mean = 0.0;
  for (var k = 0u; k < d; k++) { mean += x[base + k]; }
  mean = mean / f32(d);
  // Variance from centered values, not E[x²] - E[x]², which cancels catastrophically in f32.
  var variance = 0.0;
  for (var k = 0u; k < d; k++) { let c = x[base + k] - mean; variance += c * c; }
  let inv = inverseSqrt(variance / f32(d) + pf(2u));
  for (var k = 0u; k < d; k++) {
    out[base + k] = (x[base + k] - mean) * inv * scale[row_index(k, ${SCALE_STRIDES}u)] + bias[row_index(k, ${BIAS_STRIDES}u)];
  }
}`;

export const layerNormWebgpu: WebGpuBuilder<LayerNormKernel> = (_attrs, out, { x, scale, bias }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, bias)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('layer_norm', 'f32'), () => SOURCE);
  return ({ x, scale, bias }, { axis, epsilon }, kout) => {
    const result = allocGpu(gpu, kout);
    const uniforms = normParams(x, axis, epsilon, scale, bias);
    launch(gpu, pipeline, [x, scale, bias, result], uniforms, uniforms[0]!, 'layer_norm');
    return result;
  };
};
