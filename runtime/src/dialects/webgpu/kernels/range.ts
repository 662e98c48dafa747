// WebGPU kernel of raf.op.range (specs/tensor/range.yaml): y[i] = start + i · delta, start and delta read from their
// buffers (limit only decided the length, which the output type carries); f32, or i32 for int32 and int64.

import type { RangeKernel } from '../../../generated/bridge/range.ts';
import { sizeOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const source = (t: 'f32' | 'i32') => `@group(0) @binding(0) var<storage, read> s: array<${t}>;
@group(0) @binding(1) var<storage, read> d: array<${t}>;
@group(0) @binding(2) var<storage, read_write> y: array<${t}>;
${paramsWgsl(3, 1)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  y[i] = s[0] + ${t}(i) * d[0];
}`;

export const rangeWebgpu: WebGpuBuilder<RangeKernel> = (_attrs, out, { start, limit, delta }) => {
  const gpu = requireGpu();
  const t = out.dtype === 'float32' ? 'f32' : out.dtype === 'int32' || out.dtype === 'int64' ? 'i32' : null;
  if (!t || ![start, limit, delta].every((x) => x.device.kind === 'webgpu')) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('range', t), () => source(t));
  return ({ start, delta }, _attrs, kout) => {
    const y = allocGpu(gpu, kout);
    const n = sizeOf(kout.shape);
    launch(gpu, pipeline, [start, delta, y], new Params().u32(n).data(1), n, 'range');
    return y;
  };
};
