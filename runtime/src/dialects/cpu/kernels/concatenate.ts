// CPU kernel of raf.op.concatenate (specs/tensor/concatenate.yaml): per outer index, each input's block along axis copied in turn.

import type { ConcatenateKernel } from '../../../generated/bridge/concatenate.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

export const concatenateCpu: ConcatenateKernel = ({ xs }, { axis }, out) => {
  const y = allocOut(out);
  const ys = y.dataSync();
  // Row-major: everything after axis is one contiguous run per outer index, for every input.
  const outer = sizeOf(out.shape.slice(0, axis));
  const inner = sizeOf(out.shape.slice(axis + 1));
  const rowOut = out.shape[axis]! * inner;
  let offset = 0;
  for (const x of xs) {
    const xv = x.dataSync();
    const row = x.shape[axis]! * inner;
    for (let o = 0; o < outer; o++) ys.set(xv.subarray(o * row, (o + 1) * row), o * rowOut + offset);
    offset += row;
  }
  return y;
};
