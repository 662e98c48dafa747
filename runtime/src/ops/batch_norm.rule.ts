// Hand-written output rule of raf.op.batch_norm (specs/nn/batch_norm.yaml): scale, bias, mean and variance are [C], C = x.shape[axis].

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { BatchNormArgs } from '../generated/schema/batch_norm.ts';

export function batchNormRule<T extends TensorType>(args: BatchNormArgs<T>): TensorType {
  const { x, scale, bias, mean, variance } = args;
  const dtype = sameDtype('batch_norm', { x, scale, bias, mean, variance });
  const c = x.shape[args.axis]!;
  for (const [name, t] of Object.entries({ scale, bias, mean, variance })) {
    if (t.shape.length !== 1 || t.shape[0] !== c) {
      throw new OpError(
        'batch_norm',
        `must have shape [${c}] (x's axis ${args.axis}), got ${formatShape(t.shape)}`,
        name,
      );
    }
  }
  return { shape: x.shape, dtype };
}
