// Hand-written output rule of raf.op.cumsum (specs/tensor/cumsum.yaml), shared with cumprod: flattened when axis is null.

import { sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { CumsumArgs } from '../generated/schema/cumsum.ts';

export function scanRule<T extends TensorType>(args: CumsumArgs<T>): TensorType {
  return { shape: args.axis === null ? [sizeOf(args.x.shape)] : args.x.shape, dtype: args.dtype ?? args.x.dtype };
}
