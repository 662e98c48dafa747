// CPU kernel of raf.op.split (specs/tensor/split.yaml): each section copied out of x, one contiguous run per outer index.

import type { SplitKernel } from '../../../generated/bridge/split.ts';
import { splitBounds } from '../../../ops/split.rule.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

export const splitCpu: SplitKernel = ({ x }, { indices_or_sections, axis }, outs) => {
  const xv = x.dataSync();
  const outer = sizeOf(x.shape.slice(0, axis));
  const inner = sizeOf(x.shape.slice(axis + 1));
  const rowIn = x.shape[axis]! * inner;
  return splitBounds(indices_or_sections, x.shape[axis]!).map(([start, end], i) => {
    const y = allocOut(outs[i]!);
    const ys = y.dataSync();
    const row = (end - start) * inner;
    for (let o = 0; o < outer; o++) ys.set(xv.subarray(o * rowIn + start * inner, o * rowIn + end * inner), o * row);
    return y;
  });
};
