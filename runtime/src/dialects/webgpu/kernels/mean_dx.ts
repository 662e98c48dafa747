// WebGPU kernel of raf.op.mean_dx (specs/reduce/mean_dx.yaml): dy broadcast back over the reduced axes and divided by their count.
// raf-op-ignores: keepdims (dy's rank already says whether the reduced axes were kept)

import type { MeanDxKernel } from '../../../generated/bridge/mean_dx.ts';
import { sizeOf, stridesOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import { gather, warmGather } from '../gather.ts';
import { allFloat32, type WebGpuBuilder } from '../kernel.ts';

export const meanDxWebgpu: WebGpuBuilder<MeanDxKernel> = (_attrs, out, { x, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, dy)) return null;
  warmGather(gpu, true);
  return ({ x, dy }, { axis }, kout) => {
    const all = axis === null || axis.length === 0;
    const reduced = (d: number) => all || axis.includes(d);
    const keptShape = x.shape.map((s, d) => (reduced(d) ? 1 : s));
    const strides = stridesOf(keptShape).map((s, d) => (reduced(d) ? 0 : s));
    const count = sizeOf(x.shape.filter((_, d) => reduced(d)));
    return gather(gpu, dy, kout, strides, 0, 1 / count);
  };
};
