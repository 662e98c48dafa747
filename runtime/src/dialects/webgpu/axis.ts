// Kernels that walk whole rows along one axis (softmax family), the axis as (outer, len, inner): one invocation per
// short row, a workgroup per long one (row-fold.ts).

import { normalizeAxis, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { allFloat32, Params, paramsWgsl, type WebGpuBuilder } from './kernel.ts';
import { eachElement, foldLines, foldScratch, launchRows, lanesFor, rowEntry, type RowFold } from './row-fold.ts';
import { allocGpu } from './storage.ts';

export interface AxisRowKernel {
  /** Names the pipeline; the same definition must always come with the same key. */
  readonly op: string;
  /** Tensor inputs, bound in this order as `in_<name>`; all have the output's shape. */
  readonly inputs: readonly string[];
  /** Folds over the row, in order; their terms read the element at offset `at` (e.g. `in_x[at]`). */
  readonly folds: readonly RowFold[];
  /** WGSL statements run once the folds are bound (optional), e.g. `let shift = m + log(s);`. */
  readonly between?: string;
  /** WGSL f32 expression of the output element at offset `at`. */
  readonly value: string;
}

const WORDS = 3; // rows, len, inner

/** The pipeline's source for rows folded by `lanes` invocations each. */
export function axisRowSource(def: AxisRowKernel, lanes: number): string {
  const n = def.inputs.length;
  const position = (k: string) => `base + ${k} * inner`;
  return [
    ...def.inputs.map((name, k) => `@group(0) @binding(${k}) var<storage, read> in_${name}: array<f32>;`),
    `@group(0) @binding(${n}) var<storage, read_write> out: array<f32>;`,
    paramsWgsl(n + 1, WORDS),
    ...foldScratch(def.folds, lanes),
    ...rowEntry(lanes),
    ...[
      'if (row >= pu(0u)) { return; }',
      'let len = pu(1u);',
      'let inner = pu(2u);',
      'let base = (row / inner) * len * inner + row % inner;',
      ...foldLines(def.folds, lanes, 'len', position),
      ...(def.between ? [def.between] : []),
      ...eachElement(lanes, 'len', position, [`out[at] = ${def.value};`]),
    ].map((l) => `  ${l}`),
    '}',
  ].join('\n');
}

/** build() for a row kernel: f32 only, one pipeline per lane count for every shape and axis. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function axisRowBuilder<K extends (inputs: any, attrs: { readonly axis: number }, out: TensorType) => Tensor>(
  def: AxisRowKernel,
): WebGpuBuilder<K> {
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    if (!allFloat32(out, ...def.inputs.map((name) => (inputs as Record<string, Tensor>)[name]))) return null;
    const kernel = (
      kin: Readonly<Record<string, Tensor>>,
      kattrs: { readonly axis: number },
      kout: TensorType,
    ): Tensor => {
      const shape = kout.shape;
      const axis = normalizeAxis(kattrs.axis, shape.length);
      const len = shape[axis] ?? 1;
      const inner = sizeOf(shape.slice(axis + 1));
      const rows = sizeOf(shape.slice(0, axis)) * inner;
      const result = allocGpu(gpu, kout);
      if (len === 0 || rows === 0) return result;
      const uniforms = new Params().u32(rows).u32(len).u32(inner).data(WORDS);
      const buffers = [...def.inputs.map((name) => kin[name]!), result];
      launchRows(gpu, def.op, lanesFor(len), (lanes) => axisRowSource(def, lanes), buffers, uniforms, rows);
      return result;
    };
    return kernel as K;
  };
}
