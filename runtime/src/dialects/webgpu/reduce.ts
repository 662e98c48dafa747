// Reductions over any set of axes (sum, mean, max, min, prod, logsumexp, argmax/argmin): kept and reduced axes travel as uniforms.

import { sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import {
  FLAT_INDEX,
  launch,
  MAIN_1D,
  MAX_RANK,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from './kernel.ts';
import { allocGpu } from './storage.ts';

// Words: output count, kept rank, reduced rank, reduced count; then kept shape/strides and reduced shape/strides.
const KEPT = 4;
const REDUCED = KEPT + 2 * MAX_RANK;
const WORDS = REDUCED + 2 * MAX_RANK;

export interface Reduction {
  readonly op: string;
  /** WGSL statements computing `result` from `count` elements read as x[at(base, r)], r < count. */
  readonly body: string;
  /** WGSL type of the output ('i32' for arg reductions). */
  readonly out?: 'f32' | 'i32';
}

function source(def: Reduction): string {
  return `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<${def.out ?? 'f32'}>;
${paramsWgsl(2, WORDS)}

// Offset of the r-th reduced element (row-major over the reduced axes) of the slice starting at base.
fn at(base: u32, r: u32) -> u32 {
  var left = r;
  var off = base;
  for (var d = pu(2u); d > 0u; d--) {
    let size = pu(${REDUCED}u + d - 1u);
    off += (left % size) * pu(${REDUCED + MAX_RANK}u + d - 1u);
    left = left / size;
  }
  return off;
}

${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  var rem = i;
  var base = 0u;
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${KEPT}u + d - 1u);
    base += (rem % size) * pu(${KEPT + MAX_RANK}u + d - 1u);
    rem = rem / size;
  }
  let count = pu(3u);
${def.body}
  out[i] = result;
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
    const pipeline = gpu.pipelines.getPipelineSync(pipelineKey(def.op, 'f32'), () => source(def));
    const kernel = (
      { x }: { readonly x: Tensor },
      { axis }: { readonly axis: readonly number[] | number | null },
      kout: TensorType,
    ): Tensor => {
      const n = sizeOf(kout.shape);
      const result = allocGpu(gpu, kout);
      launch(gpu, pipeline, [x, result], reduceParams(x, axis, n), n, def.op);
      return result;
    };
    return kernel as K;
  };
}

const loop = (from: string, stmt: string) =>
  `  for (var r = ${from}; r < count; r++) { let v = x[at(base, r)]; ${stmt} }`;

export const SUM: Reduction = { op: 'sum', body: `  var result = 0.0;\n${loop('0u', 'result += v;')}` };
export const MEAN: Reduction = {
  op: 'mean',
  body: `  var acc = 0.0;\n${loop('0u', 'acc += v;')}\n  let result = acc / f32(count);`,
};
export const PROD: Reduction = { op: 'prod', body: `  var result = 1.0;\n${loop('0u', 'result *= v;')}` };
/**
 * WGSL text testing `v` for NaN by its bits: WGSL's max/min/comparisons may ignore NaN (and `v != v` may be folded),
 * but the bit pattern cannot be. NaN semantics then match the CPU and NumPy: max/min propagate NaN, argmax/argmin
 * return the first NaN.
 */
export const isNanWgsl = (v: string): string => `((bitcast<u32>(${v}) & 0x7fffffffu) > 0x7f800000u)`;

export const MAX: Reduction = {
  op: 'max',
  body: `  var result = x[at(base, 0u)];\n${loop('1u', `if (!${isNanWgsl('result')}) { result = select(max(result, v), v, ${isNanWgsl('v')}); }`)}`,
};
export const MIN: Reduction = {
  op: 'min',
  body: `  var result = x[at(base, 0u)];\n${loop('1u', `if (!${isNanWgsl('result')}) { result = select(min(result, v), v, ${isNanWgsl('v')}); }`)}`,
};
// Shifted by the maximum so exp cannot overflow; an all -inf slice would give NaN, as the CPU's does.
export const LOGSUMEXP: Reduction = {
  op: 'logsumexp',
  body: `  var m = x[at(base, 0u)];\n${loop('1u', 'm = max(m, v);')}\n  var s = 0.0;\n${loop('0u', 's += exp(v - m);')}\n  let result = m + log(s);`,
};
// Strict comparisons keep the first extreme on ties, and the first NaN wins over every number, as in NumPy.
export const ARGMAX: Reduction = {
  op: 'argmax',
  out: 'i32',
  body: `  var best = x[at(base, 0u)];\n  var result = 0i;\n${loop('1u', `if (!${isNanWgsl('best')} && (${isNanWgsl('v')} || v > best)) { best = v; result = i32(r); }`)}`,
};
export const ARGMIN: Reduction = {
  op: 'argmin',
  out: 'i32',
  body: `  var best = x[at(base, 0u)];\n  var result = 0i;\n${loop('1u', `if (!${isNanWgsl('best')} && (${isNanWgsl('v')} || v < best)) { best = v; result = i32(r); }`)}`,
};
