// Hand-written output rule of raf.op.bias_add (specs/nn/bias_add.yaml): b is 1-D with x.shape[axis] elements.

import { OpError } from '../errors.ts';
import { formatShape, normalizeAxis } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { BiasAddArgs } from '../generated/schema/bias_add.ts';

export function biasAddRule<T extends TensorType>(args: BiasAddArgs<T>): TensorType {
  const c = args.x.shape[normalizeAxis(args.axis, args.x.shape.length)]!;
  if (args.b.shape.length !== 1 || args.b.shape[0] !== c)
    throw new OpError('bias_add', `b must have shape [${c}] (x.shape[axis]), got ${formatShape(args.b.shape)}`, 'b');
  if (args.b.dtype !== args.x.dtype)
    throw new OpError('bias_add', `b has dtype ${args.b.dtype}, x has ${args.x.dtype}`, 'b');
  return { shape: args.x.shape, dtype: args.x.dtype };
}
