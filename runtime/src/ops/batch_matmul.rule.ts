// Hand-written output rule of raf.op.batch_matmul (specs/linalg/batch_matmul.yaml): rank-3 operands only.

import { matmulOf } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { MatmulArgs } from '../generated/schema/matmul.ts';

export function batchMatmulRule<T extends TensorType>(args: MatmulArgs<T>): TensorType {
  for (const [name, t] of [
    ['a', args.a],
    ['b', args.b],
  ] as const) {
    if (t.shape.length !== 3)
      throw new OpError('batch_matmul', `needs rank 3 [batch, rows, cols], got ${formatShape(t.shape)}`, name);
  }
  return matmulOf('batch_matmul', args.a, args.b);
}
