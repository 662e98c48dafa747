// Kernels driven by int32 index tensors: take/embedding gather slices along an axis, and take_dx sums dy back per index.

import { normalizeAxis, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { requireGpu } from './dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { checkTakeIndices } from './bounds.ts';
import { allocGpu, gpuElementType } from './storage.ts';

const WORDS = 4; // count, inner, index count m, axis length

// Index values live on the GPU, so they cannot be range-checked without a readback: after wrapping negatives
// once (like the CPU), an index still outside [0, len) reads as zero bits instead of another row's data.
const INDEX = `fn wrapped(k: i32, len: u32) -> u32 {
  let w = select(k, k + i32(len), k < 0);
  return select(u32(w), 0xffffffffu, w < 0 || w >= i32(len));
}`;

// Values move as u32 bits, so one pipeline serves f32, i32 and bool tensors.
const TAKE = `@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
${paramsWgsl(3, WORDS)}
${INDEX}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let inner = pu(1u);
  let m = pu(2u);
  let len = pu(3u);
  let j = (i / inner) % m;
  let k = wrapped(indices[j], len);
  if (k == 0xffffffffu) { out[i] = 0u; return; }
  out[i] = x[((i / (inner * m)) * len + k) * inner + i % inner];
}`;

// The scatter-add adjoint as a gather: each dx element sums the dy slices whose index names it, so repeated
// indices accumulate without atomics (WGSL has no float atomics).
const TAKE_DX = `@group(0) @binding(0) var<storage, read> indices: array<i32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;
${paramsWgsl(3, WORDS)}
${INDEX}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let inner = pu(1u);
  let m = pu(2u);
  let len = pu(3u);
  let t = i % inner;
  let k = (i / inner) % len;
  let base = (i / (inner * len)) * m * inner + t;
  var acc = 0.0;
  for (var j = 0u; j < m; j++) {
    if (wrapped(indices[j], len) == k) { acc += dy[base + j * inner]; }
  }
  dx[i] = acc;
}`;

function params(x: TensorType, axis: number, m: number, n: number): Uint32Array {
  const a = normalizeAxis(axis, x.shape.length);
  return new Params()
    .u32(n)
    .u32(sizeOf(x.shape.slice(a + 1)))
    .u32(m)
    .u32(x.shape[a]!)
    .data(WORDS);
}

/** build() half of take and embedding: null unless x has GPU storage and indices are int32 (or int64, held as i32). */
export function takeBuilder(x: TensorType, indices: TensorType): GpuContext | null {
  const gpu = requireGpu();
  if (!gpuElementType(x.dtype) || gpuElementType(indices.dtype) !== 'i32') return null;
  gpu.pipelines.getPipelineSync(pipelineKey('take', 'b32,i32'), () => TAKE);
  return gpu;
}

/** x[..., indices, ...] along axis; the output shape comes from the op's rule. */
export function take(gpu: GpuContext, x: Tensor, indices: Tensor, axis: number, out: TensorType, op = 'take'): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('take', 'b32,i32'), () => TAKE);
  const result = allocGpu(gpu, out);
  guarded(result, () => checkTakeIndices(op, indices, x.shape[axis]!, result));
  const n = sizeOf(out.shape);
  if (indices.size > 0) launch(gpu, pipeline, [x, indices, result], params(x, axis, indices.size, n), n, 'take');
  return result;
}

export function takeDxBuilder(x: TensorType, indices: TensorType, dy: TensorType, out: TensorType): GpuContext | null {
  const gpu = requireGpu();
  if (
    x.dtype !== 'float32' ||
    dy.dtype !== 'float32' ||
    out.dtype !== 'float32' ||
    gpuElementType(indices.dtype) !== 'i32'
  )
    return null;
  gpu.pipelines.getPipelineSync(pipelineKey('take_dx', 'f32,i32'), () => TAKE_DX);
  return gpu;
}

/** dy summed into zeros of x's shape at the taken positions. */
export function takeDx(gpu: GpuContext, x: Tensor, indices: Tensor, dy: Tensor, axis: number, out: TensorType): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('take_dx', 'f32,i32'), () => TAKE_DX);
  const result = allocGpu(gpu, out);
  guarded(result, () => checkTakeIndices('take_dx', indices, x.shape[axis]!, result));
  const n = sizeOf(out.shape);
  // With no indices nothing reads the index buffer; the loop runs zero times, so dx is all zeros either way.
  launch(gpu, pipeline, [indices, dy, result], params(x, axis, indices.size, n), n, 'take_dx');
  return result;
}

/** Runs a bounds check; a failure found before dispatch gives the result's buffer back before it propagates. */
export function guarded(result: Tensor, check: () => void): void {
  try {
    check();
  } catch (e) {
    result.dispose();
    throw e;
  }
}
