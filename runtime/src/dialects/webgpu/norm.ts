// Shared pieces of the layer_norm and rms_norm kernels: a normalized row per invocation or per workgroup (row-fold.ts), scale/bias read through broadcast strides.

import { broadcastStrides, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { coalesce, MAX_RANK, Params, paramsWgsl } from './kernel.ts';
import { eachElement, foldLines, foldScratch, launchRows, lanesFor, rowEntry, type RowFold } from './row-fold.ts';
import { allocGpu } from './storage.ts';

// Words: rows, row length, epsilon (f32 bits), broadcast rank; then the normalized shape and the scale/bias strides.
export const SHAPE = 4;
export const SCALE_STRIDES = SHAPE + MAX_RANK;
export const BIAS_STRIDES = SCALE_STRIDES + MAX_RANK;
export const WORDS = BIAS_STRIDES + MAX_RANK;

/** The row's sum, then (once `mean` is bound) its centered squares: not E[x²] - E[x]², which cancels in f32. */
const TOTAL: RowFold = { name: 'total', fold: 'sum', term: 'x[at]' };
const SQUARES: RowFold = { name: 'squares', fold: 'sum', term: '(x[at] - mean) * (x[at] - mean)' };

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

/**
 * A layer_norm kernel's WGSL for rows folded by `lanes` invocations: bindings x, scale, `third` (none when null),
 * out; each row's `mean` and `inv` (1 / σ) from two folds, then `folds` (which may read them) and `body` (statements
 * after them).
 * `d` is the row length, `n` it as f32, `base` the row's first element; `position(k)` is `base + k`. Uncentered
 * (rms_norm), `mean` is 0 and `inv` is 1 / sqrt(mean of squares + epsilon), from one fold.
 */
export function normSource(
  third: string | null,
  lanes: number,
  folds: readonly RowFold[],
  body: string[],
  centered = true,
): string {
  const position = (k: string) => `base + ${k}`;
  return [
    '@group(0) @binding(0) var<storage, read> x: array<f32>;',
    '@group(0) @binding(1) var<storage, read> scale: array<f32>;',
    ...(third ? [`@group(0) @binding(2) var<storage, read> ${third}: array<f32>;`] : []),
    `@group(0) @binding(${third ? 3 : 2}) var<storage, read_write> out: array<f32>;`,
    paramsWgsl(third ? 4 : 3, WORDS),
    ...foldScratch([...(centered ? [TOTAL] : []), SQUARES, ...folds], lanes),
    ROW_INDEX,
    ...rowEntry(lanes),
    ...[
      'if (row >= pu(0u)) { return; }',
      'let d = pu(1u);',
      'let n = f32(d);',
      'let base = row * d;',
      ...(centered ? foldLines([TOTAL], lanes, 'd', position) : []),
      centered ? 'let mean = total / n;' : 'let mean = 0.0;',
      ...foldLines([SQUARES], lanes, 'd', position),
      'let inv = inverseSqrt(squares / n + pf(2u));',
      ...foldLines(folds, lanes, 'd', position),
      ...body,
    ].map((l) => `  ${l}`),
    '}',
  ].join('\n');
}

/** The elementwise pass over a row in normSource's body: `value` is out[at]'s WGSL (k is the element's index). */
export const eachRowElement = (lanes: number, value: string): string[] =>
  eachElement(lanes, 'd', (k) => `base + ${k}`, [`out[at] = ${value};`]);

/** Runs a layer_norm kernel: a pipeline per lane count (the row length picks it), a workgroup per row when shared. */
export function runNorm(
  gpu: GpuContext,
  op: string,
  source: (lanes: number) => string,
  buffers: readonly Tensor[],
  uniforms: Uint32Array,
  out: TensorType,
): Tensor {
  const result = allocGpu(gpu, out);
  launchRows(gpu, op, lanesFor(uniforms[1]!), source, [...buffers, result], uniforms, uniforms[0]!);
  return result;
}
