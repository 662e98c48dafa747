// NumPy slice arithmetic shared by the strided_slice rule and the strided_slice(_dx) CPU kernels.

import { OpError } from '../errors.ts';
import { formatShape, normalizeAxis } from '../shape.ts';

/** Per axis of x: first index, step and count (count 0 for an empty slice). */
export interface AxisSlice {
  readonly start: number;
  readonly step: number;
  readonly count: number;
}

/**
 * Resolves begin/end/strides on `axes` (default: the leading axes) like NumPy: negative bounds count
 * from the end, out-of-range ones clamp, and a negative step walks backwards from the clamped start.
 */
export function resolveSlice(
  op: string,
  shape: readonly number[],
  begin: readonly number[],
  end: readonly number[],
  strides: readonly number[] | null,
  axes: readonly number[] | null,
): AxisSlice[] {
  const on = axes ?? begin.map((_, i) => i);
  if (begin.length !== on.length || end.length !== on.length || (strides && strides.length !== on.length)) {
    throw new OpError(
      op,
      `begin ${formatShape(begin)}, end ${formatShape(end)}${strides ? `, strides ${formatShape(strides)}` : ''} and axes must have one entry per sliced axis`,
    );
  }
  if (on.length > shape.length)
    throw new OpError(op, `slices ${on.length} axes of a rank-${shape.length} tensor`, 'begin');
  const out: AxisSlice[] = shape.map((d) => ({ start: 0, step: 1, count: d }));
  on.forEach((a, i) => {
    const axis = normalizeAxis(a, shape.length);
    const d = shape[axis]!;
    const step = strides?.[i] ?? 1;
    if (step === 0) throw new OpError(op, 'strides must be nonzero', 'strides');
    const norm = (v: number) => (v < 0 ? v + d : v);
    let start: number;
    let stop: number;
    if (step > 0) {
      start = Math.min(Math.max(norm(begin[i]!), 0), d);
      stop = Math.min(Math.max(norm(end[i]!), 0), d);
    } else {
      start = Math.min(Math.max(norm(begin[i]!), -1), d - 1);
      stop = Math.min(Math.max(norm(end[i]!), -1), d - 1);
    }
    const count = Math.max(0, Math.ceil((stop - start) / step));
    out[axis] = { start, step, count };
  });
  return out;
}
