// Hand-written output rule of raf.op.split (specs/tensor/split.yaml): one output type per section of x along axis.

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { SplitArgs } from '../generated/schema/split.ts';

/**
 * Where each section starts and ends along an axis of length `dim`: n equal sections (n must divide it, as in
 * NumPy's split), or cuts before ascending indices in [0, dim] (equal indices give empty sections).
 */
export function splitBounds(indicesOrSections: number | readonly number[], dim: number): [number, number][] {
  if (typeof indicesOrSections === 'number') {
    const n = indicesOrSections;
    if (n <= 0 || dim % n !== 0)
      throw new OpError('split', `cannot cut an axis of length ${dim} into ${n} equal sections`, 'indices_or_sections');
    return Array.from({ length: n }, (_, i) => [(i * dim) / n, ((i + 1) * dim) / n]);
  }
  const cuts = [0, ...indicesOrSections, dim];
  for (let i = 1; i < cuts.length; i++) {
    if (cuts[i]! < cuts[i - 1]! || cuts[i]! > dim) {
      throw new OpError(
        'split',
        `indices [${indicesOrSections.join(', ')}] must be ascending in [0, ${dim}]`,
        'indices_or_sections',
      );
    }
  }
  return cuts.slice(1).map((end, i) => [cuts[i]!, end]);
}

/** The output types of raf.op.split, one per element of the tuple it returns. */
export function splitRule<T extends TensorType>(args: SplitArgs<T>): TensorType[] {
  const { x, axis } = args;
  return splitBounds(args.indices_or_sections, x.shape[axis]!).map(([start, end]) => ({
    shape: x.shape.map((d, k) => (k === axis ? end - start : d)),
    dtype: x.dtype,
  }));
}
