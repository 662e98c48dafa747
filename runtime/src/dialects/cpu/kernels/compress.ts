// CPU kernel of raf.op.compress (specs/tensor/compress.yaml): the slices along axis (the elements of the flattened x
// when axis is null) whose condition entry is nonzero, in order.

import type { CompressKernel } from '../../../generated/bridge/compress.ts';
import { aroundAxis, allocOut } from '../support.ts';

export const compressCpu: CompressKernel = ({ x, condition }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const cond = condition.dataSync();
  const { outer, len, inner } = axis === null ? { outer: 1, len: xs.length, inner: 1 } : aroundAxis(x.shape, axis);
  const kept: number[] = [];
  for (let t = 0; t < Math.min(len, cond.length); t++) if (cond[t]) kept.push(t);
  let at = 0;
  for (let o = 0; o < outer; o++)
    for (const t of kept) {
      const from = (o * len + t) * inner;
      for (let i = 0; i < inner; i++) ys[at++] = xs[from + i]!;
    }
  return y;
};
