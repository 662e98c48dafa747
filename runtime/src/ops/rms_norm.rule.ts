// Hand-written output rule of raf.op.rms_norm (specs/nn/rms_norm.yaml): scale broadcasts to x.shape[axis:].

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { broadcastShapes, formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { RmsNormArgs } from '../generated/schema/rms_norm.ts';

export function rmsNormRule<T extends TensorType>(args: RmsNormArgs<T>): TensorType {
  const dtype = sameDtype('rms_norm', { x: args.x, scale: args.scale });
  const normalized = args.x.shape.slice(args.axis);
  const b = args.scale.shape.length <= normalized.length ? broadcastShapes(args.scale.shape, normalized) : null;
  if (!b || !shapesEqual(b, normalized))
    throw new OpError(
      'rms_norm',
      `must broadcast to the normalized shape ${formatShape(normalized)}, got ${formatShape(args.scale.shape)}`,
      'scale',
    );
  return { shape: args.x.shape, dtype };
}
