// WebGPU kernel of raf.op.tile (specs/tensor/tile.yaml): one strided gather walking the output as
// [reps[0], x.shape[0], reps[1], x.shape[1], ...], the repetition axes with stride 0.

import type { TileKernel } from '../../../generated/bridge/tile.ts';
import { stridesOf } from '../../../shape.ts';
import { tiledView } from '../../../ops/tile.rule.ts';
import { requireGpu } from '../dialect.ts';
import { gather, warmGather } from '../gather.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { gpuElementType } from '../storage.ts';

export const tileWebgpu: WebGpuBuilder<TileKernel> = (_attrs, out, { x }) => {
  const gpu = requireGpu();
  if (!gpuElementType(x.dtype) || out.dtype !== x.dtype) return null;
  warmGather(gpu);
  return ({ x }, { reps }, kout) => {
    const strides = stridesOf(x.shape).flatMap((s) => [0, s]);
    return gather(gpu, x, kout, strides, 0, undefined, tiledView(x.shape, reps));
  };
};
