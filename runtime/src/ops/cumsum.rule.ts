// Hand-written output rule of raf.op.cumsum (specs/tensor/cumsum.yaml), shared with cumprod: flattened when axis is null.

import { sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { CumsumArgs } from '../generated/schema/cumsum.ts';

// With no dtype given the scan keeps x's dtype (TVM's cumsum), except bool, which NumPy scans in int64: a running count
// of trues does not fit a bool (bool results hold 0 or 1).
export function scanRule<T extends TensorType>(args: CumsumArgs<T>): TensorType {
  const dtype = args.dtype ?? (args.x.dtype === 'bool' ? 'int64' : args.x.dtype);
  return { shape: args.axis === null ? [sizeOf(args.x.shape)] : args.x.shape, dtype };
}
