// Hand-written output rule of raf.op.avg_pool (specs/nn/avg_pool.yaml): x's dtype, [N, C, output...].

import type { TensorType } from '../tensor.ts';
import type { AvgPoolArgs } from '../generated/schema/avg_pool.ts';
import { poolGeometry } from './pool_nd.ts';

export function avgPoolRule<T extends TensorType>(args: AvgPoolArgs<T>): TensorType {
  const g = poolGeometry('avg_pool', args.x.shape, args);
  return { shape: [args.x.shape[0]!, args.x.shape[1]!, ...g.output], dtype: args.x.dtype };
}
