// Hand-written output rule of raf.op.layer_norm (specs/nn/layer_norm.yaml): scale and bias broadcast to x.shape[axis:].

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { broadcastShapes, formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { LayerNormArgs } from '../generated/schema/layer_norm.ts';

export function layerNormRule<T extends TensorType>(args: LayerNormArgs<T>): TensorType {
  const dtype = sameDtype('layer_norm', { x: args.x, scale: args.scale, bias: args.bias });
  const normalized = args.x.shape.slice(args.axis);
  for (const [name, t] of [
    ['scale', args.scale],
    ['bias', args.bias],
  ] as const) {
    const b = t.shape.length <= normalized.length ? broadcastShapes(t.shape, normalized) : null;
    if (!b || !shapesEqual(b, normalized)) {
      throw new OpError(
        'layer_norm',
        `must broadcast to the normalized shape ${formatShape(normalized)}, got ${formatShape(t.shape)}`,
        name,
      );
    }
  }
  return { shape: args.x.shape, dtype };
}
