// Hand-written pieces of raf.op.shape (specs/tensor/shape.yaml): a host op answers from the type alone.

import type { TensorType } from '../tensor.ts';
import type { ShapeArgs } from '../generated/schema/shape.ts';

/** The value raf.op.shape returns; no kernel runs. */
export function shapeValue(args: ShapeArgs): number[] {
  return [...args.x.shape];
}

/** As a value in a graph, the shape is an int32 vector with one element per axis. */
export function shapeRule<T extends TensorType>(args: ShapeArgs<T>): TensorType {
  return { shape: [args.x.shape.length], dtype: 'int32' };
}
