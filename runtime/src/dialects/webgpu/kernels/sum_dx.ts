// WebGPU kernel of raf.op.sum_dx (specs/reduce/sum_dx.yaml): dy broadcast back over the reduced axes, as a strided gather.
// raf-op-ignores: keepdims (dy's rank already says whether the reduced axes were kept)

import type { SumDxKernel } from '../../../generated/bridge/sum_dx.ts';
import { stridesOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import { gather, warmGather } from '../gather.ts';
import { allFloat32, type WebGpuBuilder } from '../kernel.ts';

export const sumDxWebgpu: WebGpuBuilder<SumDxKernel> = (_attrs, out, { x, dy }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, dy)) return null;
  warmGather(gpu);
  return ({ x, dy }, { axis }, kout) => {
    const all = axis === null || axis.length === 0;
    const reduced = (d: number) => all || axis.includes(d);
    // dy's elements in keepdims layout: reduced axes have size 1, so reading them with stride 0 broadcasts.
    const keptShape = x.shape.map((s, d) => (reduced(d) ? 1 : s));
    const strides = stridesOf(keptShape).map((s, d) => (reduced(d) ? 0 : s));
    return gather(gpu, dy, kout, strides);
  };
};
