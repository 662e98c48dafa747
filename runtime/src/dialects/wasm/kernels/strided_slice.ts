// Wasm kernel of raf.op.strided_slice (specs/tensor/strided_slice.yaml): the slice's index table over wasm memory
// (see gather.ts).

import type { StridedSliceKernel } from '../../../generated/bridge/strided_slice.ts';
import { resolveSlice } from '../../../ops/slice.ts';
import { sliceIndex } from '../../cpu/slice.ts';
import { gatherOverWasm, tableFor } from '../gather.ts';

export const stridedSliceWasm: StridedSliceKernel = ({ x }, attrs, out) =>
  gatherOverWasm(
    x,
    out,
    tableFor('strided_slice', attrs, x.shape, () =>
      sliceIndex(x.shape, resolveSlice('strided_slice', x.shape, attrs.begin, attrs.end, attrs.strides, attrs.axes)),
    ),
  );
