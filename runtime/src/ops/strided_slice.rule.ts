// Hand-written output rule of raf.op.strided_slice (specs/tensor/strided_slice.yaml): one count per axis.

import type { TensorType } from '../tensor.ts';
import type { StridedSliceArgs } from '../generated/schema/strided_slice.ts';
import { resolveSlice } from './slice.ts';

export function stridedSliceRule<T extends TensorType>(args: StridedSliceArgs<T>): TensorType {
  const slices = resolveSlice('strided_slice', args.x.shape, args.begin, args.end, args.strides, args.axes);
  return { shape: slices.map((s) => s.count), dtype: args.x.dtype };
}
