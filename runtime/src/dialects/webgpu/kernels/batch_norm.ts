// WebGPU kernel of raf.op.batch_norm (specs/nn/batch_norm.yaml): y = x · k + d per channel, with k = scale / sqrt(variance
// + epsilon) and d = bias - mean · k computed on the [C] vectors first, all through the WebGPU elementwise kernels. The
// intermediates (and epsilon's upload) go back to the pool at once, not when collected.

import type { BatchNormKernel } from '../../../generated/bridge/batch_norm.ts';
import { add } from '../../../generated/api/add.ts';
import { multiply } from '../../../generated/api/multiply.ts';
import { reshape } from '../../../generated/api/reshape.ts';
import { rsqrt } from '../../../generated/api/rsqrt.ts';
import { subtract } from '../../../generated/api/subtract.ts';
import { tidy } from '../../../scope.ts';
import { placeOn, tensor } from '../../../tensor.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const batchNormWebgpu: WebGpuBuilder<BatchNormKernel> = (_attrs, out) => {
  if (out.dtype !== 'float32') return null;
  return ({ x, scale, bias, mean, variance }, { axis, epsilon }) => {
    const eps = placeOn(tensor(epsilon, { dtype: 'float32' }), x.device);
    try {
      return tidy(() => {
        const k = multiply(scale, rsqrt(add(variance, eps)));
        const d = subtract(bias, multiply(mean, k));
        // [C] → [C, 1, ..., 1] so it broadcasts along x's axis.
        const along = [x.shape[axis]!, ...x.shape.slice(axis + 1).map(() => 1)];
        return add(multiply(x, reshape(k, along)), reshape(d, along));
      });
    } finally {
      eps.dispose();
    }
  };
};
