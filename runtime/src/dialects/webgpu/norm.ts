// Shared pieces of the layer_norm kernels: a normalized row per invocation or per workgroup (row-fold.ts), scale/bias read through broadcast strides.

import { broadcastStrides, sizeOf } from '../../shape.ts';
import type { Tensor } from '../../tensor.ts';
import { coalesce, MAX_RANK, Params } from './kernel.ts';
import type { RowFold } from './row-fold.ts';

// Words: rows, row length, epsilon (f32 bits), broadcast rank; then the normalized shape and the scale/bias strides.
export const SHAPE = 4;
export const SCALE_STRIDES = SHAPE + MAX_RANK;
export const BIAS_STRIDES = SCALE_STRIDES + MAX_RANK;
export const WORDS = BIAS_STRIDES + MAX_RANK;

/** The row's sum, then (once `mean` is bound) its centered squares: not E[x²] - E[x]², which cancels in f32. */
export const TOTAL: RowFold = { name: 'total', fold: 'sum', term: 'x[at]' };
export const SQUARES: RowFold = { name: 'squares', fold: 'sum', term: '(x[at] - mean) * (x[at] - mean)' };

/** WGSL: the offset of element k of a row in an operand broadcast to the normalized shape (strides at word `at`). */
export const ROW_INDEX = `fn row_index(k: u32, at: u32) -> u32 {
  var rem = k;
  var off = 0u;
  for (var d = pu(3u); d > 0u; d--) {
    let size = pu(${SHAPE}u + d - 1u);
    off += (rem % size) * pu(at + d - 1u);
    rem = rem / size;
  }
  return off;
}`;

export function normParams(x: Tensor, axis: number, epsilon: number, scale: Tensor, bias: Tensor | null): Uint32Array {
  const a = axis < 0 ? axis + x.shape.length : axis;
  const normalized = x.shape.slice(a);
  const d = sizeOf(normalized);
  const operands = [scale, bias ?? scale].map((t) => broadcastStrides(t.shape, normalized));
  const dims = coalesce(normalized, operands);
  return new Params()
    .u32(d === 0 ? 0 : x.size / d)
    .u32(d)
    .f32(epsilon)
    .u32(dims.shape.length)
    .dims(dims.shape)
    .dims(dims.strides[0]!)
    .dims(dims.strides[1]!)
    .data(WORDS);
}
