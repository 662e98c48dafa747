// WebGPU kernel of raf.op.instance_norm (specs/nn/instance_norm.yaml): one invocation per (n, c) slice, two passes
// over its spatial elements (mean, then the centered variance, as on the CPU). Float32 only.

import type { InstanceNormKernel } from '../../../generated/bridge/instance_norm.ts';
import { instanceNormLayout } from '../../../ops/instance_norm.layout.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import {
  allFloat32,
  FLAT_INDEX,
  launch,
  MAIN_1D,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const WORDS = 4; // slices, channels, spatial, eps

const SOURCE = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scale: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
${paramsWgsl(4, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let c = i % pu(1u);
  let spatial = pu(2u);
  let eps = pf(3u);
  let base = i * spatial;
  var total = 0.0;
  for (var s = 0u; s < spatial; s++) { total += x[base + s]; }
  let mean = total / f32(spatial);
  var sq = 0.0;
  for (var s = 0u; s < spatial; s++) { let d = x[base + s] - mean; sq += d * d; }
  let k = scale[c] / sqrt(sq / f32(spatial) + eps);
  for (var s = 0u; s < spatial; s++) { y[base + s] = (x[base + s] - mean) * k + bias[c]; }
}`;

export const instanceNormWebgpu: WebGpuBuilder<InstanceNormKernel> = (_attrs, out, { x, scale, bias }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, bias)) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('instance_norm', 'f32'), () => SOURCE);
  return ({ x, scale, bias }, { eps }, kout): Tensor => {
    const { n, c, spatial } = instanceNormLayout(x, scale, bias);
    const y = allocGpu(gpu, kout);
    const params = new Params()
      .u32(n * c)
      .u32(c)
      .u32(spatial)
      .f32(eps)
      .data(WORDS);
    launch(gpu, pipeline, [x, scale, bias, y], params, n * c, 'instance_norm');
    return y;
  };
};
