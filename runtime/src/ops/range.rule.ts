// Hand-written shape rule of raf.op.range (specs/tensor/range.yaml): the length comes from the values of start, limit
// and delta, which the type function reads (`check: values`), so in a graph they must be constants.

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { RangeArgs } from '../generated/schema/range.ts';

const NUMERIC = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'int32',
  'int64',
  'int16',
  'int8',
  'uint64',
  'uint32',
  'uint16',
  'uint8',
];

/** ONNX Range's element count: max(ceil((limit - start) / delta), 0). */
export function rangeLength(start: number, limit: number, delta: number): number {
  return Math.max(Math.ceil((limit - start) / delta), 0);
}

export function rangeRule<T extends TensorType>(
  args: RangeArgs<T>,
  values: { readonly start: readonly number[]; readonly limit: readonly number[]; readonly delta: readonly number[] },
): TensorType {
  const dtype = sameDtype('range', { start: args.start, limit: args.limit, delta: args.delta });
  if (!NUMERIC.includes(dtype)) throw new OpError('range', `must be a number type, got ${dtype}`, 'start');
  for (const name of ['start', 'limit', 'delta'] as const)
    if (values[name].length !== 1)
      throw new OpError('range', `must be a scalar, got shape ${formatShape(args[name].shape)}`, name);
  for (const name of ['start', 'limit', 'delta'] as const)
    if (!Number.isFinite(values[name][0]!))
      throw new OpError('range', `must be a finite number, got ${values[name][0]}`, name);
  const delta = values.delta[0]!;
  if (delta === 0) throw new OpError('range', 'must not be 0', 'delta');
  return { shape: [rangeLength(values.start[0]!, values.limit[0]!, delta)], dtype };
}
