// Hand-written output rule of raf.op.rotary_embedding (specs/nn/rotary_embedding.yaml): checks x's layout, the
// rotary dimension and the caches' and position ids' shapes; the output is x's type.

import { sameDtype } from '../checks.ts';
import { isFloat, isInteger } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { RotaryEmbeddingArgs } from '../generated/schema/rotary_embedding.ts';

/** x's layout as (batch, heads, seq, head_size) and the rotated features per head; shared with the kernels. */
export function rotaryLayout(
  x: readonly number[],
  numHeads: number,
  rotaryDim: number,
): { batch: number; heads: number; seq: number; headSize: number; rot: number } {
  const op = 'rotary_embedding';
  let batch: number, heads: number, seq: number, headSize: number;
  if (x.length === 4) {
    [batch, heads, seq, headSize] = x as [number, number, number, number];
    if (numHeads && numHeads !== heads)
      throw new OpError(
        op,
        `num_heads = ${numHeads} disagrees with x's ${heads} heads (x is ${formatShape(x)})`,
        'num_heads',
      );
  } else if (x.length === 3) {
    if (!numHeads) throw new OpError(op, `a 3-D x needs num_heads (x is ${formatShape(x)})`, 'num_heads');
    [batch, seq] = x as [number, number];
    heads = numHeads;
    if (x[2]! % heads)
      throw new OpError(op, `hidden size ${x[2]} is not a multiple of num_heads = ${heads}`, 'num_heads');
    headSize = x[2]! / heads;
  } else throw new OpError(op, `x must be 3-D or 4-D, got ${formatShape(x)}`, 'x');
  const rot = rotaryDim || headSize;
  if (rot > headSize || rot % 2)
    throw new OpError(op, `rotary_dim = ${rot} must be even and at most the head size ${headSize}`, 'rotary_dim');
  return { batch, heads, seq, headSize, rot };
}

export function rotaryEmbeddingRule<T extends TensorType>(args: RotaryEmbeddingArgs<T>): TensorType {
  const op = 'rotary_embedding';
  const dtype = sameDtype(op, { x: args.x, cos_cache: args.cos_cache, sin_cache: args.sin_cache });
  if (!isFloat(dtype)) throw new OpError(op, `must be a float tensor, got ${dtype}`, 'x');
  const { batch, seq, rot } = rotaryLayout(args.x.shape, args.num_heads, args.rotary_dim);
  const ids = args.position_ids;
  if (ids) {
    if (!isInteger(ids.dtype)) throw new OpError(op, `must be an integer tensor, got ${ids.dtype}`, 'position_ids');
    if (!shapesEqual(ids.shape, [batch, seq]))
      throw new OpError(op, `must be [${batch}, ${seq}], got ${formatShape(ids.shape)}`, 'position_ids');
  }
  for (const name of ['cos_cache', 'sin_cache'] as const) {
    const c = args[name].shape;
    const want = ids ? [c[0] ?? 0, rot / 2] : [batch, seq, rot / 2];
    if (!shapesEqual(c, want)) throw new OpError(op, `must be ${formatShape(want)}, got ${formatShape(c)}`, name);
  }
  return { shape: args.x.shape, dtype };
}
