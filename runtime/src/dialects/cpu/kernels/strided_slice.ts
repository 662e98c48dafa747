// CPU kernel of raf.op.strided_slice (specs/tensor/strided_slice.yaml).

import type { StridedSliceKernel } from '../../../generated/bridge/strided_slice.ts';
import { resolveSlice } from '../../../ops/slice.ts';
import { sliceIndex } from '../slice.ts';
import { allocOut } from '../support.ts';

export const stridedSliceCpu: StridedSliceKernel = ({ x }, { begin, end, strides, axes }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const from = sliceIndex(x.shape, resolveSlice('strided_slice', x.shape, begin, end, strides, axes));
  for (let i = 0; i < ys.length; i++) ys[i] = xs[from[i]!]!;
  return y;
};
