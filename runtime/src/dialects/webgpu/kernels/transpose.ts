// WebGPU kernel of raf.op.transpose (specs/tensor/transpose.yaml): a strided gather, output axis d reading input axis axes[d].

import type { TransposeKernel } from '../../../generated/bridge/transpose.ts';
import { stridesOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import { gather, warmGather } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { gpuElementType } from '../storage.ts';

export const transposeWebgpu: WebGpuBuilder<TransposeKernel> = (_attrs, out) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype)) return null;
  warmGather(gpu);
  return ({ x }, { axes }, kout) => {
    const rank = x.shape.length;
    const perm = axes === null ? x.shape.map((_, d) => rank - 1 - d) : axes.map((a) => (a < 0 ? a + rank : a));
    const strides = stridesOf(x.shape);
    return gather(
      gpu,
      x,
      kout,
      perm.map((p) => strides[p]!),
    );
  };
};
