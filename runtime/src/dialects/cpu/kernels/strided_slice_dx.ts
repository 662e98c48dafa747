// CPU kernel of raf.op.strided_slice_dx (specs/tensor/strided_slice_dx.yaml): dy written back at the sliced positions.

import type { StridedSliceDxKernel } from '../../../generated/bridge/strided_slice_dx.ts';
import { resolveSlice } from '../../../ops/slice.ts';
import { sliceIndex } from '../slice.ts';
import { allocOut } from '../support.ts';

export const stridedSliceDxCpu: StridedSliceDxKernel = ({ x, dy }, { begin, end, strides, axes }, out) => {
  const dx = allocOut(out);
  const dxs = dx.dataSync();
  const dys = dy.dataSync();
  // Slice positions are distinct, so plain stores suffice (no accumulation).
  const to = sliceIndex(x.shape, resolveSlice('strided_slice_dx', x.shape, begin, end, strides, axes));
  for (let i = 0; i < dys.length; i++) dxs[to[i]!] = dys[i]!;
  return dx;
};
