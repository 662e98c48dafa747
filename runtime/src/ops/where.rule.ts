// Hand-written output rule of raf.op.where (specs/math/where.yaml): a bool condition, x and y of one dtype.

import { broadcastOf } from '../checks.ts';
import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { WhereArgs } from '../generated/schema/where.ts';

export function whereRule<T extends TensorType>(args: WhereArgs<T>): TensorType {
  if (args.condition.dtype !== 'bool')
    throw new OpError('where', `condition must be bool, got ${args.condition.dtype}`, 'condition');
  const { dtype } = broadcastOf('where', { x: args.x, y: args.y });
  const { shape } = broadcastOf('where', { condition: { ...args.condition, dtype }, x: args.x, y: args.y });
  return { shape, dtype };
}
