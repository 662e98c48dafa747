// WebGPU kernel of raf.op.rms_norm (specs/nn/rms_norm.yaml): one fold of squares per row, then x · inv · scale; a long
// row is shared by a workgroup, as layer_norm's.

import type { RmsNormKernel } from '../../../generated/bridge/rms_norm.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, type WebGpuBuilder } from '../kernel.ts';
import { eachRowElement, normParams, normSource, runNorm, SCALE_STRIDES } from '../norm.ts';

const source = (lanes: number) =>
  normSource(null, lanes, [], eachRowElement(lanes, `x[at] * inv * scale[row_index(k, ${SCALE_STRIDES}u)]`), false);

export const rmsNormWebgpu: WebGpuBuilder<RmsNormKernel> = (_attrs, out, { x, scale }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, scale)) return null;
  return ({ x, scale }, { axis, epsilon }, kout) =>
    runNorm(gpu, 'rms_norm', source, [x, scale], normParams(x, axis, epsilon, scale, null), kout);
};
