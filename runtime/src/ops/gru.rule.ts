// Hand-written output rule of raf.op.gru (specs/nn/gru.yaml): Y [T, dirs, B, H] and Y_h [dirs, B, H].

import type { TensorType } from '../tensor.ts';
import type { GruArgs } from '../generated/schema/gru.ts';
import { rnnDims } from './rnn-shapes.ts';

/** The output types of raf.op.gru: the hidden state at every step, and the last one. */
export function gruRule<T extends TensorType>(args: GruArgs<T>): TensorType[] {
  const { initial_h, ...rest } = args;
  const [T, dirs, B, H] = rnnDims('gru', 3, { ...rest, states: { initial_h } });
  const dtype = args.x.dtype;
  return [
    { shape: [T, dirs, B, H], dtype },
    { shape: [dirs, B, H], dtype },
  ];
}
