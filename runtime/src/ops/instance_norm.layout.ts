// Shape checks shared by raf.op.instance_norm's kernels (specs/nn/instance_norm.yaml): x is (N, C, spatial...),
// scale and bias are (C).

import { OpError } from '../errors.ts';
import { sizeOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';

export function instanceNormLayout(
  x: TensorType,
  scale: TensorType,
  bias: TensorType,
): { n: number; c: number; spatial: number } {
  if (x.shape.length < 3)
    throw new OpError('instance_norm', `x must be (N, C, spatial...), got rank ${x.shape.length}`, 'x');
  const c = x.shape[1]!;
  for (const [name, t] of [
    ['scale', scale],
    ['bias', bias],
  ] as const) {
    if (t.shape.length !== 1 || t.shape[0] !== c)
      throw new OpError(
        'instance_norm',
        `${name} must have shape [${c}] (x's channels), got [${t.shape.join(', ')}]`,
        name,
      );
  }
  return { n: x.shape[0]!, c, spatial: sizeOf(x.shape.slice(2)) };
}
