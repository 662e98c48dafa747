// Hand-written output rule of raf.op.pad (specs/tensor/pad.yaml): pads in ONNX layout, leading amounts then trailing.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { PadArgs } from '../generated/schema/pad.ts';

export function padRule<T extends TensorType>(args: PadArgs<T>): TensorType {
  const n = args.x.shape.length;
  if (args.pads.length !== 2 * n)
    throw new OpError('pad', `needs ${2 * n} values (leading then trailing per axis), got ${args.pads.length}`, 'pads');
  return { shape: args.x.shape.map((d, i) => d + args.pads[i]! + args.pads[i + n]!), dtype: args.x.dtype };
}
