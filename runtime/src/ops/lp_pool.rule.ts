// Hand-written output rule of raf.op.lp_pool (specs/nn/lp_pool.yaml): x's dtype, [N, C, output...].

import type { TensorType } from '../tensor.ts';
import type { LpPoolArgs } from '../generated/schema/lp_pool.ts';
import { poolGeometry } from './pool_nd.ts';

export function lpPoolRule<T extends TensorType>(args: LpPoolArgs<T>): TensorType {
  const g = poolGeometry('lp_pool', args.x.shape, args);
  return { shape: [args.x.shape[0]!, args.x.shape[1]!, ...g.output], dtype: args.x.dtype };
}
