// Shared shape checks of raf.op.lstm and raf.op.gru (specs/nn/lstm.yaml, specs/nn/gru.yaml): ONNX's layout 0, where
// x is [T, B, I], w [dirs, G·H, I], r [dirs, G·H, H], b [dirs, 2·G·H], sequence_lens [B], states [dirs, B, H].

import { isFloat } from '../dtype.ts';
import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';

export interface RnnTypes {
  readonly x: TensorType;
  readonly w: TensorType;
  readonly r: TensorType;
  readonly b: TensorType | null;
  readonly sequence_lens: TensorType | null;
  /** The initial states, by arg name (initial_h, and initial_c for LSTM). */
  readonly states: Readonly<Record<string, TensorType | null>>;
  readonly direction: string;
  readonly hidden_size: number;
}

const show = (s: readonly number[]) => `[${s.join(', ')}]`;

/** Checks an RNN op's inputs for `gates` gates and returns [T, dirs, B, H]. */
export function rnnDims(op: string, gates: number, a: RnnTypes): [number, number, number, number] {
  const { x, w, r, b, sequence_lens } = a;
  if (!isFloat(x.dtype)) throw new OpError(op, `x must be a float tensor, got ${x.dtype}`, 'x');
  if (x.shape.length !== 3)
    throw new OpError(op, `x must be [seq_length, batch, input_size], got ${show(x.shape)}`, 'x');
  const [T, B, I] = x.shape as [number, number, number];
  const dirs = a.direction === 'bidirectional' ? 2 : 1;
  if (r.shape.length !== 3)
    throw new OpError(op, `r must be [directions, ${gates}·hidden, hidden], got ${show(r.shape)}`, 'r');
  const H = r.shape[2]!;
  if (a.hidden_size !== H)
    throw new OpError(op, `hidden_size = ${a.hidden_size} disagrees with r's ${H}`, 'hidden_size');
  const expect = (t: TensorType | null, name: string, shape: readonly number[]) => {
    if (!t) return;
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
      throw new OpError(op, `${name} must be ${show(shape)} (direction ${a.direction}), got ${show(t.shape)}`, name);
    if (name !== 'sequence_lens' && t.dtype !== x.dtype)
      throw new OpError(op, `${name} is ${t.dtype}, x is ${x.dtype}`, name);
  };
  expect(w, 'w', [dirs, gates * H, I]);
  expect(r, 'r', [dirs, gates * H, H]);
  expect(b, 'b', [dirs, 2 * gates * H]);
  expect(sequence_lens, 'sequence_lens', [B]);
  if (sequence_lens && sequence_lens.dtype !== 'int32' && sequence_lens.dtype !== 'int64')
    throw new OpError(op, `sequence_lens must be int32 or int64, got ${sequence_lens.dtype}`, 'sequence_lens');
  for (const [name, t] of Object.entries(a.states)) expect(t, name, [dirs, B, H]);
  return [T, dirs, B, H];
}
