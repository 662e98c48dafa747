// WebGPU kernel of raf.op.cast (specs/tensor/cast.yaml): float32, int32 and bool conversions; float64 and float16 stay on the CPU.

import type { CastKernel } from '../../../generated/bridge/cast.ts';
import type { DType } from '../../../dtype.ts';
import { requireGpu } from '../dialect.ts';
import { copyTensor } from '../gather.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu, gpuElementType } from '../storage.ts';

type Stored = 'f32' | 'i32' | 'u32';

/** WGSL for the value `v` (stored as `from`) converted to dtype `to`, following castScalar. */
function convert(v: string, from: Stored, to: DType): string {
  // Bool is stored as u32 0/1; "nonzero becomes true" compares against the source type's zero.
  if (to === 'bool') return `select(0u, 1u, ${v} != ${from === 'f32' ? '0.0' : from === 'i32' ? '0i' : '0u'})`;
  // WGSL's f32 → i32 truncates toward zero like Math.trunc, but saturates where JS's `| 0` wraps (|v| ≥ 2³¹).
  return to === 'int32' ? `i32(${v})` : `f32(${v})`;
}

const source = (from: Stored, to: DType) => `@group(0) @binding(0) var<storage, read> x: array<${from}>;
@group(0) @binding(1) var<storage, read_write> out: array<${gpuElementType(to)}>;
${paramsWgsl(2, 1)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  out[i] = ${convert('x[i]', from, to)};
}`;

export const castWebgpu: WebGpuBuilder<CastKernel> = (_attrs, out, { x }) => {
  const gpu = requireGpu();
  const from = gpuElementType(x.dtype);
  const to = gpuElementType(out.dtype);
  if (!from || !to) return null;
  // Same dtype: the elements are already right, so a queue copy (no shader) gives the new tensor its own buffer.
  if (x.dtype === out.dtype) return ({ x }, _kattrs, kout) => copyTensor(gpu, x, kout);
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('cast', `${from}>${to}`), () => source(from, out.dtype));
  return ({ x }, _kattrs, kout) => {
    const result = allocGpu(gpu, kout);
    launch(gpu, pipeline, [x, result], new Params().u32(x.size).data(1), x.size, 'cast');
    return result;
  };
};
