// WebGPU kernel of raf.op.constant_of_shape (specs/tensor/constant_of_shape.yaml): every output word set to the value's
// bits, one pipeline for f32, i32 (int32, and int64 held as int32) and bool (u32).
// raf-op-ignores: dtype (the output type it is given already has it)

import type { ConstantOfShapeKernel } from '../../../generated/bridge/constant_of_shape.ts';
import { sizeOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu, gpuElementType } from '../storage.ts';

const SOURCE = `@group(0) @binding(0) var<storage, read_write> y: array<u32>;
${paramsWgsl(1, 2)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  y[i] = pu(1u);
}`;

function bits(dtype: string, value: number): number {
  if (dtype === 'float32') return new Uint32Array(Float32Array.of(value).buffer)[0]!;
  if (dtype === 'bool') return value !== 0 ? 1 : 0;
  const v = Math.trunc(value);
  if (v < -(2 ** 31) || v > 2 ** 31 - 1)
    throw new RangeError(`value ${value} does not fit the int32 words WebGPU holds ${dtype} in`);
  return v >>> 0;
}

export const constantOfShapeWebgpu: WebGpuBuilder<ConstantOfShapeKernel> = ({ value }, out) => {
  const gpu = requireGpu();
  if (!gpuElementType(out.dtype)) return null;
  const word = bits(out.dtype, value);
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('constant_of_shape', 'b32'), () => SOURCE);
  return (_inputs, _attrs, kout) => {
    const y = allocGpu(gpu, kout);
    const n = sizeOf(kout.shape);
    launch(gpu, pipeline, [y], new Params().u32(n).u32(word).data(2), n, 'constant_of_shape');
    return y;
  };
};
