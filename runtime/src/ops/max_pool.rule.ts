// Hand-written output rule of raf.op.max_pool (specs/nn/max_pool.yaml): the maxima in x's dtype and their int64
// indices, both [N, C, output...].

import type { TensorType } from '../tensor.ts';
import type { MaxPoolArgs } from '../generated/schema/max_pool.ts';
import { poolGeometry } from './pool_nd.ts';

export function maxPoolRule<T extends TensorType>(args: MaxPoolArgs<T>): TensorType[] {
  const g = poolGeometry('max_pool', args.x.shape, args);
  const shape = [args.x.shape[0]!, args.x.shape[1]!, ...g.output];
  return [
    { shape, dtype: args.x.dtype },
    { shape, dtype: 'int64' },
  ];
}
