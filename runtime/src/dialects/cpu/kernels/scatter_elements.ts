// CPU kernel of raf.op.scatter_elements (specs/tensor/scatter_elements.yaml): x copied, then each update applied in
// indices' row-major order, so with reduction none a repeated index keeps the last update (as onnxruntime does).
// bool values combine as logic: add and max are or, mul and min are and.

import type { ScatterElementsKernel } from '../../../generated/bridge/scatter_elements.ts';
import { forEachElementGather } from '../elements.ts';
import { allocOut } from '../support.ts';

const COMBINE: Readonly<Record<string, (v: number, u: number) => number>> = {
  none: (_v, u) => u,
  add: (v, u) => v + u,
  mul: (v, u) => v * u,
  max: (v, u) => (v !== v || v >= u ? v : u),
  min: (v, u) => (v !== v || v <= u ? v : u),
};
const COMBINE_BOOL: Readonly<Record<string, (v: number, u: number) => number>> = {
  none: (_v, u) => u,
  add: (v, u) => Number(v || u),
  mul: (v, u) => Number(v && u),
  max: (v, u) => Number(v || u),
  min: (v, u) => Number(v && u),
};

export const scatterElementsCpu: ScatterElementsKernel = ({ x, indices, updates }, { axis, reduction }, out) => {
  const y = allocOut(out);
  const ys = y.dataSync();
  ys.set(x.dataSync() as never);
  const us = updates.dataSync();
  const combine = (out.dtype === 'bool' ? COMBINE_BOOL : COMBINE)[reduction]!;
  forEachElementGather('scatter_elements', x, indices, axis, (j, xi) => (ys[xi] = combine(ys[xi]!, us[j]!)));
  return y;
};
