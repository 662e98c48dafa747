// Hand-written output rule of raf.op.cumsum (specs/tensor/cumsum.yaml), shared with cumprod: flattened when axis is null.

import { accumulateDtype } from '../promote.ts';
import { sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { CumsumArgs } from '../generated/schema/cumsum.ts';

// With no dtype given the scan runs in NumPy's accumulation dtype, as np.cumsum and np.cumprod do (and raf.op.sum):
// bool and integers narrower than 64 bits in int64, unsigned ones in uint64 (promote.ts accumulateDtype); floats keep
// theirs. The ONNX and Relay imports cast back to the input's dtype, as those targets keep it.
export function scanRule<T extends TensorType>(args: CumsumArgs<T>): TensorType {
  const dtype = args.dtype ?? accumulateDtype(args.x.dtype);
  return { shape: args.axis === null ? [sizeOf(args.x.shape)] : args.x.shape, dtype };
}
