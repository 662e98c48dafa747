// Kernels that walk whole rows along one axis (softmax family): one invocation per row, the axis as (outer, len, inner).

import { normalizeAxis, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import {
  allFloat32,
  FLAT_INDEX,
  launch,
  MAIN_1D,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from './kernel.ts';
import { allocGpu } from './storage.ts';

export interface AxisRowKernel {
  /** Names the pipeline; the same body must always come with the same key. */
  readonly op: string;
  /** Tensor inputs, bound in this order as `in_<name>`; all have the output's shape. */
  readonly inputs: readonly string[];
  /** WGSL statements over one row: element k sits at `base + k * inner`, for k < len; write `out[...]`. */
  readonly body: string;
}

const WORDS = 3; // rows, len, inner

function source(def: AxisRowKernel): string {
  const n = def.inputs.length;
  return [
    ...def.inputs.map((name, k) => `@group(0) @binding(${k}) var<storage, read> in_${name}: array<f32>;`),
    `@group(0) @binding(${n}) var<storage, read_write> out: array<f32>;`,
    paramsWgsl(n + 1, WORDS),
    `${MAIN_1D} {`,
    `  ${FLAT_INDEX}`,
    '  if (i >= pu(0u)) { return; }',
    '  let len = pu(1u);',
    '  let inner = pu(2u);',
    '  let base = (i / inner) * len * inner + i % inner;',
    def.body,
    '}',
  ].join('\n');
}

/** build() for a row kernel: f32 only, one pipeline for every shape and axis. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function axisRowBuilder<K extends (inputs: any, attrs: { readonly axis: number }, out: TensorType) => Tensor>(
  def: AxisRowKernel,
): WebGpuBuilder<K> {
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    if (!allFloat32(out, ...def.inputs.map((name) => (inputs as Record<string, Tensor>)[name]))) return null;
    const pipeline = gpu.pipelines.getPipelineSync(pipelineKey(def.op, 'f32'), () => source(def));
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
      if (len === 0) return result;
      const uniforms = new Params().u32(rows).u32(len).u32(inner).data(WORDS);
      launch(gpu, pipeline, [...def.inputs.map((name) => kin[name]!), result], uniforms, rows, def.op);
      return result;
    };
    return kernel as K;
  };
}
