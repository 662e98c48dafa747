// Hand-written shape rule of raf.op.tile (specs/tensor/tile.yaml): x.shape[i] * reps[i] on each axis.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { TileArgs } from '../generated/schema/tile.ts';

export function tileRule<T extends TensorType>(args: TileArgs<T>): TensorType {
  const { x, reps } = args;
  if (reps.length !== x.shape.length)
    throw new OpError('tile', `has ${reps.length} entries, x has ${x.shape.length} axes; give one per axis`, 'reps');
  return { shape: x.shape.map((d, i) => d * reps[i]!), dtype: x.dtype };
}

/** The output viewed as [reps[0], x.shape[0], reps[1], x.shape[1], ...]: every tile is one index of the even axes. */
export function tiledView(shape: readonly number[], reps: readonly number[]): number[] {
  return shape.flatMap((d, i) => [reps[i]!, d]);
}
