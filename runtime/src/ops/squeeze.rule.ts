// Hand-written output rule of raf.op.squeeze (specs/tensor/squeeze.yaml): only unit axes may go.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { SqueezeArgs } from '../generated/schema/squeeze.ts';

export function squeezeRule<T extends TensorType>(args: SqueezeArgs<T>): TensorType {
  const { shape } = args.x;
  for (const a of args.axis ?? []) {
    if (shape[a] !== 1)
      throw new OpError('squeeze', `axis ${a} has size ${shape[a]}, only size-1 axes can be squeezed`, 'axis');
  }
  const drop = (d: number, i: number) => (args.axis === null ? d === 1 : args.axis.includes(i));
  return { shape: shape.filter((d, i) => !drop(d, i)), dtype: args.x.dtype };
}
