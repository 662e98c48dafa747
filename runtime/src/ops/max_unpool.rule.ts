// Hand-written output rule of raf.op.max_unpool (specs/nn/max_unpool.yaml): output_shape when given, else per spatial
// axis (in - 1) * stride + kernel - pad_begin - pad_end, in x's dtype.

import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { MaxUnpoolArgs } from '../generated/schema/max_unpool.ts';

const OP = 'max_unpool';

export function maxUnpoolRule<T extends TensorType>(args: MaxUnpoolArgs<T>): TensorType {
  const { x, indices, kernel } = args;
  const rank = x.shape.length - 2;
  if (rank < 1) throw new OpError(OP, `needs x of rank 3 or more [N, C, spatial...], got ${formatShape(x.shape)}`, 'x');
  if (indices.dtype !== 'int64' && indices.dtype !== 'int32')
    throw new OpError(OP, `must be int64 (or int32) indices, got ${indices.dtype}`, 'indices');
  if (!shapesEqual(indices.shape, x.shape))
    throw new OpError(OP, `must have x's shape ${formatShape(x.shape)}, got ${formatShape(indices.shape)}`, 'indices');
  if (kernel.length !== rank)
    throw new OpError(OP, `needs ${rank} values (one per spatial axis), got ${formatShape(kernel)}`, 'kernel');
  const stride = args.stride ?? new Array<number>(rank).fill(1);
  const pads = args.padding ?? new Array<number>(2 * rank).fill(0);
  if (stride.length !== rank)
    throw new OpError(OP, `needs ${rank} values (one per spatial axis), got ${formatShape(stride)}`, 'stride');
  if (pads.length !== 2 * rank)
    throw new OpError(OP, `needs ${2 * rank} values [begin..., end...], got ${formatShape(pads)}`, 'padding');
  const inferred = [
    x.shape[0]!,
    x.shape[1]!,
    ...x.shape.slice(2).map((d, i) => (d - 1) * stride[i]! + kernel[i]! - pads[i]! - pads[i + rank]!),
  ];
  if (inferred.some((d) => d <= 0))
    throw new OpError(OP, `gives the empty output shape ${formatShape(inferred)}`, 'padding');
  const out = args.output_shape;
  if (out === null) return { shape: inferred, dtype: x.dtype };
  if (out.length !== x.shape.length || out[0] !== x.shape[0] || out[1] !== x.shape[1])
    throw new OpError(
      OP,
      `must be [N, C, spatial...] = [${x.shape[0]}, ${x.shape[1]}, ...], got ${formatShape(out)}`,
      'output_shape',
    );
  if (out.some((d, i) => i >= 2 && d < inferred[i]!))
    throw new OpError(
      OP,
      `${formatShape(out)} is smaller than the unpooled shape ${formatShape(inferred)}`,
      'output_shape',
    );
  return { shape: [...out], dtype: x.dtype };
}
