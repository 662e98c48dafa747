// Hand-written output rule of raf.op.cast (specs/tensor/cast.yaml): x's shape in the requested dtype.

import type { TensorType } from '../tensor.ts';
import type { CastArgs } from '../generated/schema/cast.ts';

export function castRule<T extends TensorType>(args: CastArgs<T>): TensorType {
  return { shape: args.x.shape, dtype: args.dtype };
}
