// Hand-written output rule of raf.op.bitcast (specs/tensor/bitcast.yaml): x's shape in dtype, which must have x's
// element width.

import type { DType } from '../dtype.ts';
import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { BitcastArgs } from '../generated/schema/bitcast.ts';

/** Bits per element of each dtype, as ONNX stores it. */
export const BIT_WIDTH: Readonly<Record<DType, number>> = {
  float16: 16,
  bfloat16: 16,
  int16: 16,
  uint16: 16,
  float32: 32,
  int32: 32,
  uint32: 32,
  float64: 64,
  int64: 64,
  uint64: 64,
  int8: 8,
  uint8: 8,
  bool: 8,
};

export function bitcastRule<T extends TensorType>(args: BitcastArgs<T>): TensorType {
  const { x, dtype } = args;
  if (BIT_WIDTH[dtype] !== BIT_WIDTH[x.dtype])
    throw new OpError(
      'bitcast',
      `${dtype} is ${BIT_WIDTH[dtype]}-bit and x (${x.dtype}) is ${BIT_WIDTH[x.dtype]}-bit; bitcast needs equal widths`,
      'dtype',
    );
  return { shape: x.shape, dtype };
}
