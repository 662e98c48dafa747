// Hand-written output rule of raf.op.group_norm (specs/nn/group_norm.yaml): x is (N, C, spatial...), num_groups
// divides C, scale and bias are (C).

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { GroupNormArgs } from '../generated/schema/group_norm.ts';

export function groupNormRule<T extends TensorType>(args: GroupNormArgs<T>): TensorType {
  const op = 'group_norm';
  const dtype = sameDtype(op, { x: args.x, scale: args.scale, bias: args.bias });
  if (args.x.shape.length < 2) throw new OpError(op, `x must be (N, C, ...), got ${formatShape(args.x.shape)}`, 'x');
  const c = args.x.shape[1]!;
  if (c % args.num_groups)
    throw new OpError(op, `num_groups = ${args.num_groups} does not divide the ${c} channels`, 'num_groups');
  for (const name of ['scale', 'bias'] as const)
    if (!shapesEqual(args[name].shape, [c]))
      throw new OpError(op, `must have shape [${c}] (x's channels), got ${formatShape(args[name].shape)}`, name);
  return { shape: args.x.shape, dtype };
}
