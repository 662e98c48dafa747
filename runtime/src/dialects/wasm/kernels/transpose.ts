// Wasm kernel of raf.op.transpose (specs/tensor/transpose.yaml): x read through permuted strides, as an index table
// over wasm memory (see gather.ts).

import type { TransposeKernel } from '../../../generated/bridge/transpose.ts';
import { transposeIndex } from '../../cpu/kernels/transpose.ts';
import { gatherOverWasm, tableFor } from '../gather.ts';

export const transposeWasm: TransposeKernel = ({ x }, attrs, out) =>
  gatherOverWasm(
    x,
    out,
    tableFor('transpose', attrs, x.shape, () => transposeIndex(x.shape, attrs.axes, out.shape)),
  );
