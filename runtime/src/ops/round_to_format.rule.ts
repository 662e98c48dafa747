// Hand-written output rule of raf.op.round_to_format (specs/quant/round_to_format.yaml): x's shape in the format's
// carrier dtype (formats.ts).

import { OpError } from '../errors.ts';
import { carrierOf, isNarrowFormat } from '../formats.ts';
import type { TensorType } from '../tensor.ts';
import type { RoundToFormatArgs } from '../generated/schema/round_to_format.ts';

const OP = 'round_to_format';

export function roundToFormatRule<T extends TensorType>(args: RoundToFormatArgs<T>): TensorType {
  const { x, format } = args;
  if (!isNarrowFormat(format)) throw new OpError(OP, `'${format}' is not a narrow format raf-op knows`, 'format');
  if (x.dtype === 'bool' && carrierOf(format) === 'float32')
    throw new OpError(OP, `dtype bool is not supported for ${format}; cast x to a number dtype first`, 'x');
  return { shape: x.shape, dtype: carrierOf(format) };
}
