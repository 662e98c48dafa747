// Reductions over any set of axes (sum, mean, max, min, prod, logsumexp, the norms, log_sum, argmax/argmin): kept and reduced axes travel as uniforms.

import { sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { MAX_RANK, Params, paramsWgsl, type WebGpuBuilder } from './kernel.ts';
import { foldLines, foldScratch, launchRows, lanesFor, rowEntry, type RowFold } from './row-fold.ts';
import { allocGpu } from './storage.ts';

// Words: output count, kept rank, reduced rank, reduced count; then kept shape/strides and reduced shape/strides;
// then, for a split reduction, the chunks per cell and the elements per chunk.
const KEPT = 4;
const REDUCED = KEPT + 2 * MAX_RANK;
const SPLIT = REDUCED + 2 * MAX_RANK;
const WORDS = SPLIT + 2;

/**
 * Fewer output cells than this, each over at least SPLIT_FROM elements, split: their slices are cut into chunks of
 * about CHUNK elements, a workgroup folds each chunk, and a second launch folds each cell's chunks (one workgroup per
 * cell would leave most of a GPU idle: a sum of 2^20 elements took 2.1 ms on an H100 that way, 312 ms by one
 * invocation).
 */
const SPLIT_CELLS = 128;
export const SPLIT_FROM = 1 << 14;
const CHUNK = 2048;
const MAX_CHUNKS = 1024;

export interface Reduction {
  readonly op: string;
  /** Folds over the slice's elements, read as `x[at]`; the last binds `result` unless `finish` does. */
  readonly folds: readonly RowFold[];
  /** WGSL statements binding `result` from the folds (and `count`, the slice's length). */
  readonly finish?: string;
  /** WGSL type of the output ('i32' for arg reductions). */
  readonly out?: 'f32' | 'i32';
}

/**
 * The pipeline's source for output cells each reduced by `lanes` invocations; `split`: each workgroup folds one chunk
 * of a cell's slice instead (row = cell · chunks + chunk) and writes its partial (an arg fold: the value, and the
 * element's index in the slice to `out_i`).
 */
export function reductionSource(def: Reduction, lanes: number, split = false): string {
  const arg = def.out === 'i32';
  const [fold] = def.folds;
  const outType = split ? 'f32' : (def.out ?? 'f32');
  const store = split
    ? arg
      ? `out[row] = ${fold!.name}_value; out_i[row] = i32(start) + ${fold!.name};`
      : `out[row] = ${fold!.name};`
    : 'out[row] = result;';
  return `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<${outType}>;
${split && arg ? '@group(0) @binding(2) var<storage, read_write> out_i: array<i32>;\n' : ''}${paramsWgsl(split && arg ? 3 : 2, WORDS)}
${foldScratch(def.folds, lanes).join('\n')}

// Offset of the r-th reduced element (row-major over the reduced axes) of the slice starting at base.
fn elem_at(base: u32, r: u32) -> u32 {
  var left = r;
  var off = base;
  for (var d = pu(2u); d > 0u; d--) {
    let size = pu(${REDUCED}u + d - 1u);
    off += (left % size) * pu(${REDUCED + MAX_RANK}u + d - 1u);
    left = left / size;
  }
  return off;
}

${rowEntry(lanes).join('\n')}
${
  split
    ? `  if (row >= pu(0u) * pu(${SPLIT}u)) { return; }
  let cell = row / pu(${SPLIT}u);
  let start = (row % pu(${SPLIT}u)) * pu(${SPLIT + 1}u);
  // CHUNK and MAX_CHUNKS leave no chunk empty (a max fold starts from the chunk's first element).
  let len = min(pu(3u), start + pu(${SPLIT + 1}u)) - start;`
    : `  if (row >= pu(0u)) { return; }
  let cell = row;
  let start = 0u;
  let len = pu(3u);`
}
  var rem = cell;
  var base = 0u;
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${KEPT}u + d - 1u);
    base += (rem % size) * pu(${KEPT + MAX_RANK}u + d - 1u);
    rem = rem / size;
  }
  let count = pu(3u);
${[...foldLines(def.folds, lanes, 'len', (k) => `elem_at(base, start + ${k})`), ...(def.finish && !split ? [def.finish] : [])].map((l) => `  ${l}`).join('\n')}
  ${lanes === 1 ? store : `if (lane == 0u) { ${store} }`}
}`;
}

/** The second launch of a split reduction: each cell folds its chunks' partials (words: cells, chunks, count). */
export function partialsSource(def: Reduction, lanes: number): string {
  const arg = def.out === 'i32';
  const [fold] = def.folds;
  // Partials combine as their elements did (a sum of sums, the first extreme among the chunks' first extremes).
  const folds: RowFold[] = [{ ...fold!, term: 'part_in[at]' }];
  return `@group(0) @binding(0) var<storage, read> part_in: array<f32>;
${arg ? '@group(0) @binding(1) var<storage, read> part_in_i: array<i32>;\n' : ''}@group(0) @binding(${arg ? 2 : 1}) var<storage, read_write> out: array<${def.out ?? 'f32'}>;
${paramsWgsl(arg ? 3 : 2, 3)}
${foldScratch(folds, lanes).join('\n')}
${rowEntry(lanes).join('\n')}
  if (row >= pu(0u)) { return; }
  let chunks = pu(1u);
  let count = pu(2u);
${[...foldLines(folds, lanes, 'chunks', (k) => `row * chunks + ${k}`), ...(def.finish ? [def.finish] : [])].map((l) => `  ${l}`).join('\n')}
  ${((st: string) => (lanes === 1 ? st : `if (lane == 0u) { ${st} }`))(arg ? `out[row] = part_in_i[row * chunks + u32(${fold!.name})];` : 'out[row] = result;')}
}`;
}

/** Splits x's axes into kept and reduced ones; null or [] reduces everything, a single int is one axis. */
export function reduceParams(
  x: TensorType,
  axis: readonly number[] | number | null,
  n: number,
  chunks = 1,
  chunk = 0,
): Uint32Array {
  const axes = axis === null ? [] : typeof axis === 'number' ? [axis < 0 ? axis + x.shape.length : axis] : axis;
  const all = axes.length === 0;
  const strides = stridesOf(x.shape);
  const dims = x.shape.map((_, d) => d);
  const kept = dims.filter((d) => !all && !axes.includes(d));
  const reduced = dims.filter((d) => all || axes.includes(d));
  return new Params()
    .u32(n)
    .u32(kept.length)
    .u32(reduced.length)
    .u32(sizeOf(reduced.map((d) => x.shape[d]!)))
    .dims(kept.map((d) => x.shape[d]!))
    .dims(kept.map((d) => strides[d]!))
    .dims(reduced.map((d) => x.shape[d]!))
    .dims(reduced.map((d) => strides[d]!))
    .u32(chunks)
    .u32(chunk)
    .data(WORDS);
}

/** build() of a reduction; keepdims changes only the output's shape, not its element order, so it is not in the key. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function reduction<K extends (inputs: any, attrs: any, out: TensorType) => Tensor>(
  def: Reduction,
): WebGpuBuilder<K> {
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    if ((inputs as { x: Tensor }).x.dtype !== 'float32' || out.dtype !== (def.out === 'i32' ? 'int32' : 'float32'))
      return null;
    const splits = def.folds.length === 1;
    const kernel = (
      { x }: { readonly x: Tensor },
      { axis }: { readonly axis: readonly number[] | number | null },
      kout: TensorType,
    ): Tensor => {
      const n = sizeOf(kout.shape);
      const result = allocGpu(gpu, kout);
      if (n === 0) return result;
      const count = sizeOf(x.shape) / n;
      if (splits && n < SPLIT_CELLS && count >= SPLIT_FROM) return splitReduce(x, axis, n, count, result);
      // A workgroup per output cell once the slices are long enough to share (row-fold.ts).
      const source = (lanes: number) => reductionSource(def, lanes);
      launchRows(gpu, def.op, lanesFor(count), source, [x, result], reduceParams(x, axis, n), n);
      return result;
    };
    const splitReduce = (
      x: Tensor,
      axis: readonly number[] | number | null,
      n: number,
      count: number,
      result: Tensor,
    ): Tensor => {
      const chunks = Math.min(MAX_CHUNKS, Math.ceil(count / CHUNK));
      const chunk = Math.ceil(count / chunks);
      const arg = def.out === 'i32';
      const partials = allocGpu(gpu, { shape: [n * chunks], dtype: 'float32' });
      const indices = arg ? allocGpu(gpu, { shape: [n * chunks], dtype: 'int32' }) : null;
      const firstOut = indices ? [partials, indices] : [partials];
      const chunkSource = (lanes: number) => reductionSource(def, lanes, true);
      const params = reduceParams(x, axis, n, chunks, chunk);
      launchRows(gpu, def.op, lanesFor(chunk), chunkSource, [x, ...firstOut], params, n * chunks, 'chunks');
      const params2 = new Params().u32(n).u32(chunks).u32(count).data(3);
      const partialSource = (lanes: number) => partialsSource(def, lanes);
      launchRows(gpu, def.op, lanesFor(chunks), partialSource, [...firstOut, result], params2, n, 'partials');
      // The queue runs the two launches before any later use of these buffers.
      partials.dispose();
      indices?.dispose();
      return result;
    };
    return kernel as K;
  };
}

const over = (name: string, fold: RowFold['fold'], term = 'x[at]'): RowFold => ({ name, fold, term });

export const SUM: Reduction = { op: 'sum', folds: [over('result', 'sum')] };
export const MEAN: Reduction = { op: 'mean', folds: [over('acc', 'sum')], finish: 'let result = acc / f32(count);' };
export const PROD: Reduction = { op: 'prod', folds: [over('result', 'prod')] };
// NaN propagates (the CPU's and NumPy's semantics): WGSL's max/min may ignore it, so the folds test its bits.
export const MAX: Reduction = { op: 'max', folds: [over('result', 'nanmax')] };
export const MIN: Reduction = { op: 'min', folds: [over('result', 'nanmin')] };
// Shifted by the maximum so exp cannot overflow. As on the CPU: a NaN anywhere gives NaN (the NaN-propagating max),
// and an infinite maximum is the result itself (logsumexp([inf, -inf]) = inf, of an all -inf slice -inf), where the
// shift would compute inf - inf = NaN.
export const LOGSUMEXP: Reduction = {
  op: 'logsumexp',
  folds: [over('m', 'nanmax'), over('s', 'sum', 'exp(x[at] - m)')],
  finish: 'let result = select(m + log(s), m, (bitcast<u32>(m) & 0x7fffffffu) == 0x7f800000u);',
};
// The first extreme on ties, and the first NaN wins over every number, as in NumPy.
export const ARGMAX: Reduction = { op: 'argmax', out: 'i32', folds: [over('result', 'argmax')] };
export const ARGMIN: Reduction = { op: 'argmin', out: 'i32', folds: [over('result', 'argmin')] };
// The norms and log_sum fold a term of each element in f32 (the CPU folds in float64); NaN and ±inf follow IEEE as on
// the CPU: |±inf| and (±inf)² are inf, a NaN anywhere gives NaN, log_sum of a sum that is NaN or negative is NaN.
export const REDUCE_L1: Reduction = { op: 'reduce_l1', folds: [over('result', 'sum', 'abs(x[at])')] };
export const SUM_SQUARE: Reduction = { op: 'sum_square', folds: [over('result', 'sum', 'x[at] * x[at]')] };
export const REDUCE_L2: Reduction = {
  op: 'reduce_l2',
  folds: [over('acc', 'sum', 'x[at] * x[at]')],
  finish: 'let result = sqrt(acc);',
};
export const LOG_SUM: Reduction = { op: 'log_sum', folds: [over('acc', 'sum')], finish: 'let result = log(acc);' };
