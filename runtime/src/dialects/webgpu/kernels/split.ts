// WebGPU kernel of raf.op.split (specs/tensor/split.yaml): each section a strided gather of x, one launch per output.

import type { SplitKernel } from '../../../generated/bridge/split.ts';
import { splitBounds } from '../../../ops/split.rule.ts';
import { requireGpu } from '../dialect.ts';
import { warmGather } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { pick } from '../lattice.ts';
import { gpuElementType } from '../storage.ts';

export const splitWebgpu: WebGpuBuilder<SplitKernel> = (_attrs, outs) => {
  const gpu = requireGpu();
  if (!outs.every((o) => gpuElementType(o.dtype))) return null;
  warmGather(gpu);
  return ({ x }, { indices_or_sections, axis }, kouts) =>
    splitBounds(indices_or_sections, x.shape[axis]!).map(([start, end], i) =>
      pick(
        gpu,
        x,
        x.shape.map((count, d) => (d === axis ? { start, step: 1, count: end - start } : { start: 0, step: 1, count })),
        kouts[i]!,
      ),
    );
};
