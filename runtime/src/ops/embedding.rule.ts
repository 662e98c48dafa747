// Hand-written output rule of raf.op.embedding (specs/nn/embedding.yaml): rows of a rank-2 weight.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { EmbeddingArgs } from '../generated/schema/embedding.ts';
import { gatherType } from './take.rule.ts';

export function embeddingRule<T extends TensorType>(args: EmbeddingArgs<T>): TensorType {
  if (args.weight.shape.length !== 2)
    throw new OpError('embedding', `needs shape [V, D], got ${formatShape(args.weight.shape)}`, 'weight');
  return gatherType('embedding', args.weight, args.indices, 0);
}
