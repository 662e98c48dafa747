// WebGPU kernel of raf.op.cast (specs/tensor/cast.yaml): float32, float16, int32 and bool conversions, and int64 (held as
// i32) from the integer dtypes; float64, int8, uint8 and float → int64 stay on the CPU.

import type { CastKernel } from '../../../generated/bridge/cast.ts';
import type { DType } from '../../../dtype.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import type { GpuContext } from '../device.ts';
import { F16_PACK, loadHalf } from '../f16.ts';
import { copyTensor } from '../gather.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu, gpuElementType, gpuHolds } from '../storage.ts';

/** How a dtype sits in a buffer: its 32-bit WGSL element type, or f16 packed two per u32. */
type Stored = 'f32' | 'i32' | 'u32' | 'f16';
const stored = (d: DType): Stored => (d === 'float16' ? 'f16' : gpuElementType(d)!);

/** WGSL for the value `v` (stored as `from`; a packed f16 is already unpacked to f32) converted to dtype `to`, following castScalar. */
function convert(v: string, from: Stored, to: DType): string {
  const f = from === 'f16' ? 'f32' : from;
  // Bool is stored as u32 0/1; "nonzero becomes true" compares against the source type's zero.
  if (to === 'bool') return `select(0u, 1u, ${v} != ${f === 'f32' ? '0.0' : f === 'i32' ? '0i' : '0u'})`;
  // WGSL's f32 → i32 truncates toward zero like Math.trunc, but saturates where JS's `| 0` wraps (|v| ≥ 2³¹).
  // float16 results are converted to f32 here and rounded to half by pack_f16 at the store.
  return to === 'int32' || to === 'int64' ? `i32(${v})` : `f32(${v})`;
}

function source(from: Stored, to: DType): string {
  const load = (j: string) => (from === 'f16' ? loadHalf('x', j) : `x[${j}]`);
  const head = `@group(0) @binding(0) var<storage, read> x: array<${from === 'f16' ? 'u32' : from}>;
@group(0) @binding(1) var<storage, read_write> out: array<${to === 'float16' ? 'u32' : gpuElementType(to)}>;
${paramsWgsl(2, 1)}`;
  if (to !== 'float16') {
    return `${head}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  out[i] = ${convert(load('i'), from, to)};
}`;
  }
  // One invocation per output word: elements 2i and 2i + 1, the second only when it exists.
  return `${head}
${F16_PACK}
${MAIN_1D} {
  ${FLAT_INDEX}
  let j = 2u * i;
  if (j >= pu(0u)) { return; }
  var b = 0.0;
  if (j + 1u < pu(0u)) { b = ${convert(load('j + 1u'), from, to)}; }
  out[i] = pack_f16(${convert(load('j'), from, to)}, b);
}`;
}

const pipelineFor = (gpu: GpuContext, from: DType, to: DType) =>
  gpu.pipelines.getPipelineSync(pipelineKey('cast', `${stored(from)}>${stored(to)}`), () => source(stored(from), to));

/** x converted to `dtype` on the GPU (a new tensor; x is left as it is). Both dtypes must be ones a GPU tensor holds. */
export function castOnGpu(gpu: GpuContext, x: Tensor, dtype: DType): Tensor {
  const out = { shape: x.shape, dtype };
  // Same dtype: the elements are already right, so a queue copy (no shader) gives the new tensor its own buffer.
  if (x.dtype === dtype) return copyTensor(gpu, x, out);
  const result = allocGpu(gpu, out);
  const invocations = dtype === 'float16' ? Math.ceil(x.size / 2) : x.size;
  launch(gpu, pipelineFor(gpu, x.dtype, dtype), [x, result], new Params().u32(x.size).data(1), invocations, 'cast');
  return result;
}

export const castWebgpu: WebGpuBuilder<CastKernel> = (_attrs, out, { x }) => {
  const gpu = requireGpu();
  if (!gpuHolds(x.dtype) || !gpuHolds(out.dtype)) return null;
  // int64 is held as i32 (storage.ts): from a float, WGSL's i32() would saturate values int32 cannot hold, so that
  // cast stays on the CPU; from int32, int64 or bool every value fits and converts exactly.
  if (out.dtype === 'int64' && gpuElementType(x.dtype) === 'f32') return null;
  if (out.dtype === 'int64' && x.dtype === 'float16') return null;
  // Compiled here, so the first call pays no compile and a WGSL error surfaces at build.
  if (x.dtype !== out.dtype) pipelineFor(gpu, x.dtype, out.dtype);
  return ({ x }, _kattrs, kout) => castOnGpu(gpu, x, kout.dtype);
};
