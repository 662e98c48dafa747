// Hand-written output rule of raf.op.layout_transform (specs/tensor/layout_transform.yaml): both layouts name x's
// axes with the same distinct letters; the result's axes follow dst_layout.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { LayoutTransformArgs } from '../generated/schema/layout_transform.ts';

/** For each axis of the result, the axis of x it comes from. */
export function layoutPermutation(src: string, dst: string, ndim: number): number[] {
  const primal = (l: string): boolean => /^[A-Z]+$/.test(l) && new Set(l).size === l.length;
  for (const [l, arg] of [
    [src, 'src_layout'],
    [dst, 'dst_layout'],
  ] as const)
    if (!primal(l))
      throw new OpError(
        'layout_transform',
        `layout '${l}' is not supported: only orderings of distinct axis letters (NCHW, NHWC, OIHW, HWIO), no split axes like NCHW16c`,
        arg,
      );
  if (src.length !== ndim)
    throw new OpError('layout_transform', `src_layout '${src}' names ${src.length} axes, x has ${ndim}`, 'src_layout');
  if (dst.length !== src.length || [...dst].some((c) => !src.includes(c)))
    throw new OpError('layout_transform', `dst_layout '${dst}' is not a reordering of '${src}'`, 'dst_layout');
  return [...dst].map((c) => src.indexOf(c));
}

export function layoutTransformRule<T extends TensorType>(args: LayoutTransformArgs<T>): TensorType {
  const perm = layoutPermutation(args.src_layout, args.dst_layout, args.x.shape.length);
  return { shape: perm.map((p) => args.x.shape[p]!), dtype: args.x.dtype };
}
