// Hand-written shape rule of raf.op.det (specs/linalg/det.yaml): x [..., M, M] gives [...].

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { DetArgs } from '../generated/schema/det.ts';

/** The output type of raf.op.det: x's leading dims, x's dtype. */
export function detRule<T extends TensorType>(args: DetArgs<T>): TensorType {
  const s = args.x.shape;
  if (s.length < 2 || s[s.length - 1] !== s[s.length - 2])
    throw new OpError('det', `needs square matrices [..., M, M], got ${formatShape(s)}`, 'x');
  return { shape: s.slice(0, -2), dtype: args.x.dtype };
}
