// WebGPU kernel of raf.op.concatenate (specs/tensor/concatenate.yaml): each input scattered into its block of the output.

import type { ConcatenateKernel } from '../../../generated/bridge/concatenate.ts';
import { stridesOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import { scatterInto, warmScatter } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { allocGpu, gpuElementType } from '../storage.ts';

export const concatenateWebgpu: WebGpuBuilder<ConcatenateKernel> = (_attrs, out) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype)) return null;
  warmScatter(gpu);
  return ({ xs }, { axis }, kout) => {
    const y = allocGpu(gpu, kout);
    // Every input walks the output's strides from where its block starts along axis; the blocks tile the output, so
    // the pooled buffer's stale contents are all overwritten.
    const strides = stridesOf(kout.shape);
    let start = 0;
    for (const x of xs) {
      scatterInto(gpu, x, y, strides, start * strides[axis]!);
      start += x.shape[axis]!;
    }
    return y;
  };
};
