// Hand-written output rule of raf.op.rnn (specs/nn/rnn.yaml): Y [T, dirs, B, H] and Y_h [dirs, B, H].

import type { TensorType } from '../tensor.ts';
import type { RnnArgs } from '../generated/schema/rnn.ts';
import { rnnDims } from './rnn-shapes.ts';

export function rnnRule<T extends TensorType>(args: RnnArgs<T>): TensorType[] {
  const { initial_h, ...rest } = args;
  const [T, dirs, B, H] = rnnDims('rnn', 1, { ...rest, states: { initial_h } });
  const dtype = args.x.dtype;
  return [
    { shape: [T, dirs, B, H], dtype },
    { shape: [dirs, B, H], dtype },
  ];
}
