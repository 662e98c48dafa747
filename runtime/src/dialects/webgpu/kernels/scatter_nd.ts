// WebGPU kernel of raf.op.scatter_nd (specs/tensor/scatter_nd.yaml), written as a gather: each output element walks
// the index rows in order and applies those naming its slice, so a repeated index keeps the last update (none) or
// accumulates (add, mul) exactly as the CPU does, with no atomics.

import type { ScatterNdKernel } from '../../../generated/bridge/scatter_nd.ts';
import { sizeOf } from '../../../shape.ts';
import { checkIndexRows } from '../bounds.ts';
import { requireGpu } from '../dialect.ts';
import { guarded } from '../indexed.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const DIMS = 4; // words: count, index rows, k, slice size; then x's leading k dims
const WORDS = DIMS + 8;

const APPLY: Readonly<Record<string, string>> = {
  none: 'u',
  add: 'v + u',
  mul: 'v * u',
  max: 'max(v, u)',
  min: 'min(v, u)',
};

const source = (
  element: 'f32' | 'i32',
  reduction: string,
) => `@group(0) @binding(0) var<storage, read> x: array<${element}>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read> updates: array<${element}>;
@group(0) @binding(3) var<storage, read_write> out: array<${element}>;
${paramsWgsl(4, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let k = pu(2u);
  let slice = pu(3u);
  let at = i / slice;
  let inner = i % slice;
  var v = x[i];
  for (var r = 0u; r < pu(1u); r++) {
    var s = 0u;
    var ok = true;
    for (var j = 0u; j < k; j++) {
      let len = i32(pu(${DIMS}u + j));
      let c = indices[r * k + j];
      let w = select(c, c + len, c < 0);
      if (w < 0 || w >= len) { ok = false; }
      s = s * u32(len) + u32(w);
    }
    if (ok && s == at) {
      let u = updates[r * slice + inner];
      v = ${APPLY[reduction]};
    }
  }
  out[i] = v;
}`;

const ELEMENT: Readonly<Record<string, 'f32' | 'i32'>> = { float32: 'f32', int32: 'i32' };

export const scatterNdWebgpu: WebGpuBuilder<ScatterNdKernel> = ({ reduction }, out, { indices }) => {
  const gpu = requireGpu();
  const element = ELEMENT[out.dtype];
  if (!element || (indices.dtype !== 'int32' && indices.dtype !== 'int64') || !APPLY[reduction]) return null;
  const key = pipelineKey('scatter_nd', element, reduction);
  const pipeline = gpu.pipelines.getPipelineSync(key, () => source(element, reduction));
  return ({ x, indices, updates }, _attrs, kout) => {
    const k = indices.shape[indices.shape.length - 1]!;
    const result = allocGpu(gpu, kout);
    guarded(result, () => checkIndexRows('scatter_nd', indices, x.shape.slice(0, k), result));
    const n = sizeOf(kout.shape);
    const uniforms = new Params()
      .u32(n)
      .u32(k ? indices.size / k : 0)
      .u32(k)
      .u32(sizeOf(x.shape.slice(k)))
      .dims(x.shape.slice(0, k))
      .data(WORDS);
    launch(gpu, pipeline, [x, indices, updates, result], uniforms, n, 'scatter_nd');
    return result;
  };
};
