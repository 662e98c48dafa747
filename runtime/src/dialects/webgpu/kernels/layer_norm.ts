// WebGPU kernel of raf.op.layer_norm (specs/nn/layer_norm.yaml): two-pass mean and centered variance per row, like the CPU; a long row is shared by a workgroup.

import type { LayerNormKernel } from '../../../generated/bridge/layer_norm.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, type WebGpuBuilder } from '../kernel.ts';
import { BIAS_STRIDES, eachRowElement, normParams, normSource, runNorm, SCALE_STRIDES } from '../norm.ts';

const source = (lanes: number) =>
  normSource(
    'bias',
    lanes,
    [],
    eachRowElement(
      lanes,
      `(x[at] - mean) * inv * scale[row_index(k, ${SCALE_STRIDES}u)] + bias[row_index(k, ${BIAS_STRIDES}u)]`,
    ),
  );

export const layerNormWebgpu: WebGpuBuilder<LayerNormKernel> = (_attrs, out, { x, scale, bias }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale, bias)) return null;
  return ({ x, scale, bias }, { axis, epsilon }, kout) =>
    runNorm(gpu, 'layer_norm', source, [x, scale, bias], normParams(x, axis, epsilon, scale, bias), kout);
};
