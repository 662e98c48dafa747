// Hand-written output rule of raf.op.lstm (specs/nn/lstm.yaml): Y [T, dirs, B, H], Y_h and Y_c [dirs, B, H].

import type { TensorType } from '../tensor.ts';
import type { LstmArgs } from '../generated/schema/lstm.ts';
import { rnnDims } from './rnn-shapes.ts';

/** The output types of raf.op.lstm: the hidden state at every step, and the last hidden and cell states. */
export function lstmRule<T extends TensorType>(args: LstmArgs<T>): TensorType[] {
  const { initial_h, initial_c, ...rest } = args;
  const [T, dirs, B, H] = rnnDims('lstm', 4, { ...rest, states: { initial_h, initial_c } });
  const dtype = args.x.dtype;
  return [
    { shape: [T, dirs, B, H], dtype },
    { shape: [dirs, B, H], dtype },
    { shape: [dirs, B, H], dtype },
  ];
}
