// WebGPU kernel of raf.op.layer_norm_dx (specs/nn/layer_norm_dx.yaml): dx = inv·(g - mean(g) - x̂·mean(g·x̂)) with g = dy·scale, per row.

import type { LayerNormDxKernel } from '../../../generated/bridge/layer_norm_dx.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, FLAT_INDEX, launch, MAIN_1D, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { normParams, ROW_INDEX, SCALE_STRIDES, WORDS } from '../norm.ts';
import { allocGpu } from '../storage.ts';

const SOURCE = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
${paramsWgsl(4, WORDS)}
${ROW_INDEX}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let d = pu(1u);
  let n = f32(d);
  let base = i * d;
  var mean = 0.0;
  for (var k = 0u; k < d; k++) { mean += x[base + k]; }
  mean = mean / n;
  var variance = 0.0;
  for (var k = 0u; k < d; k++) { let c = x[base + k] - mean; variance += c * c; }
  let inv = inverseSqrt(variance / n + pf(2u));
  var g_mean = 0.0;
  var gx_mean = 0.0;
  for (var k = 0u; k < d; k++) {
    let g = dy[base + k] * scale[row_index(k, ${SCALE_STRIDES}u)];
    g_mean += g;
    gx_mean += g * (x[base + k] - mean) * inv;
  }
  g_mean = g_mean / n;
  gx_mean = gx_mean / n;
  for (var k = 0u; k < d; k++) {
    let g = dy[base + k] * scale[row_index(k, ${SCALE_STRIDES}u)];
    out[base + k] = inv * (g - g_mean - (x[base + k] - mean) * inv * gx_mean);
  }
}`;

export const layerNormDxWebgpu: WebGpuBuilder<LayerNormDxKernel> = (_attrs, out, { x, scale, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, dy)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('layer_norm_dx', 'f32'), () => SOURCE);
  return ({ x, scale, dy }, { axis, epsilon }, kout) => {
    const result = allocGpu(gpu, kout);
    const uniforms = normParams(x, axis, epsilon, scale, null);
    launch(gpu, pipeline, [x, scale, dy, result], uniforms, uniforms[0]!, 'layer_norm_dx');
    return result;
  };
};
