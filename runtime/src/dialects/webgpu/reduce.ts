// Reductions over any set of axes (sum, mean, max, min, prod, logsumexp, argmax/argmin): kept and reduced axes travel as uniforms.

import { sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { launch, MAX_RANK, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from './kernel.ts';
import { foldLines, foldScratch, laneGroup, lanesFor, rowEntry, type RowFold } from './row-fold.ts';
import { allocGpu } from './storage.ts';

// Words: output count, kept rank, reduced rank, reduced count; then kept shape/strides and reduced shape/strides.
const KEPT = 4;
const REDUCED = KEPT + 2 * MAX_RANK;
const WORDS = REDUCED + 2 * MAX_RANK;

export interface Reduction {
  readonly op: string;
  /** Folds over the slice's elements, read as `x[at]`; the last binds `result` unless `finish` does. */
  readonly folds: readonly RowFold[];
  /** WGSL statements binding `result` from the folds (and `count`, the slice's length). */
  readonly finish?: string;
  /** WGSL type of the output ('i32' for arg reductions). */
  readonly out?: 'f32' | 'i32';
}

/** The pipeline's source for output cells each reduced by `lanes` invocations. */
export function reductionSource(def: Reduction, lanes: number): string {
  return `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<${def.out ?? 'f32'}>;
${paramsWgsl(2, WORDS)}
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
  if (row >= pu(0u)) { return; }
  var rem = row;
  var base = 0u;
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${KEPT}u + d - 1u);
    base += (rem % size) * pu(${KEPT + MAX_RANK}u + d - 1u);
    rem = rem / size;
  }
  let count = pu(3u);
${[...foldLines(def.folds, lanes, 'count', (k) => `elem_at(base, ${k})`), ...(def.finish ? [def.finish] : [])].map((l) => `  ${l}`).join('\n')}
  ${lanes === 1 ? 'out[row] = result;' : 'if (lane == 0u) { out[row] = result; }'}
}`;
}

/** Splits x's axes into kept and reduced ones; null or [] reduces everything, a single int is one axis. */
export function reduceParams(x: TensorType, axis: readonly number[] | number | null, n: number): Uint32Array {
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
    const pipelineFor = (lanes: number) =>
      gpu.pipelines.getPipelineSync(pipelineKey(def.op, 'f32', ...(lanes > 1 ? [`l${lanes}`] : [])), () =>
        reductionSource(def, lanes),
      );
    const kernel = (
      { x }: { readonly x: Tensor },
      { axis }: { readonly axis: readonly number[] | number | null },
      kout: TensorType,
    ): Tensor => {
      const n = sizeOf(kout.shape);
      const result = allocGpu(gpu, kout);
      if (n === 0) return result;
      // A workgroup per output cell once the slices are long enough to share (row-fold.ts).
      const lanes = lanesFor(sizeOf(x.shape) / n);
      const params = reduceParams(x, axis, n);
      launch(gpu, pipelineFor(lanes), [x, result], params, n * lanes, def.op, laneGroup(lanes));
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
// Shifted by the maximum so exp cannot overflow; an all -inf slice would give NaN, as the CPU's does.
export const LOGSUMEXP: Reduction = {
  op: 'logsumexp',
  folds: [over('m', 'max'), over('s', 'sum', 'exp(x[at] - m)')],
  finish: 'let result = m + log(s);',
};
// The first extreme on ties, and the first NaN wins over every number, as in NumPy.
export const ARGMAX: Reduction = { op: 'argmax', out: 'i32', folds: [over('result', 'argmax')] };
export const ARGMIN: Reduction = { op: 'argmin', out: 'i32', folds: [over('result', 'argmin')] };
