// Strided copies, out[i] = src[offset(i)] and its inverse out[offset(i)] = src[i]: broadcasts, transposes, slices and
// concatenation for any 4-byte dtype, with shapes and strides as uniforms.

import { sizeOf } from '../../shape.ts';
import { Tensor, type TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { requireGpu } from './dialect.ts';
import {
  coalesce,
  FLAT_INDEX,
  launch,
  MAIN_1D,
  MAX_RANK,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from './kernel.ts';
import { allocGpu, gpuBuffer, gpuByteSize, gpuHolds, GpuStorage } from './storage.ts';

const SHAPE = 4; // words: count, rank, base offset, scale (f32 bits), then shape and strides
const STRIDES = SHAPE + MAX_RANK;
const WORDS = STRIDES + MAX_RANK;

// `off` walks the strided side, i the dense one; `store` says which side is read and which written.
const source = (
  element: 'f32' | 'u32',
  store: string,
) => `@group(0) @binding(0) var<storage, read> src: array<${element}>;
@group(0) @binding(1) var<storage, read_write> out: array<${element}>;
${paramsWgsl(2, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  var rem = i;
  var off = pu(2u);
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${SHAPE}u + d - 1u);
    off += (rem % size) * pu(${STRIDES}u + d - 1u);
    rem = rem / size;
  }
  ${store};
}`;
// u32 moves the bits untouched, so one pipeline serves f32, i32 and bool (stored as u32) alike.
const COPY = source('u32', 'out[i] = src[off]');
const SCALED = source('f32', 'out[i] = src[off] * pf(3u)');
// The inverse walk writes into an existing tensor, so several launches can each fill their own block of one output.
const SCATTER = source('u32', 'out[off] = src[i]');

/**
 * A new tensor of type `out` whose element at each coordinate is src's element at `offset + Σ coord·strides`
 * (strides per output dimension, 0 for broadcast ones), times `scale` when given (float32 only). `walk`, a shape
 * with out's element count, is walked instead of out's own (tile walks its output as [reps, dim] pairs).
 */
export function gather(
  gpu: GpuContext,
  src: Tensor,
  out: TensorType,
  strides: readonly number[],
  offset = 0,
  scale?: number,
  walk: readonly number[] = out.shape,
): Tensor {
  const scaled = scale !== undefined;
  const pipeline = gpu.pipelines.getPipelineSync(
    pipelineKey(scaled ? 'gather_scaled' : 'gather', scaled ? 'f32' : 'b32'),
    () => (scaled ? SCALED : COPY),
  );
  const result = allocGpu(gpu, out);
  const n = sizeOf(out.shape);
  const dims = coalesce(walk, [strides]);
  const uniforms = new Params()
    .u32(n)
    .u32(dims.shape.length)
    .u32(offset)
    .f32(scale ?? 1)
    .dims(dims.shape)
    .dims(dims.strides[0]!)
    .data(WORDS);
  launch(gpu, pipeline, [src, result], uniforms, n, 'gather');
  return result;
}

/** Compiles a gather pipeline ahead of the first call, inside a kernel's build(). */
export function warmGather(gpu: GpuContext, scaled = false): void {
  gpu.pipelines.getPipelineSync(pipelineKey(scaled ? 'gather_scaled' : 'gather', scaled ? 'f32' : 'b32'), () =>
    scaled ? SCALED : COPY,
  );
}

/** Compiles the scatter pipeline ahead of the first call, inside a kernel's build(). */
export function warmScatter(gpu: GpuContext): void {
  gpu.pipelines.getPipelineSync(pipelineKey('scatter', 'b32'), () => SCATTER);
}

/**
 * Writes every element of src into `dst` (same dtype) at `offset + Σ coord·strides`, coord being the element's
 * coordinate in src; the rest of dst is left as it was. The strides must not map two coordinates to one element.
 */
export function scatterInto(gpu: GpuContext, src: Tensor, dst: Tensor, strides: readonly number[], offset = 0): void {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('scatter', 'b32'), () => SCATTER);
  const n = src.size;
  const dims = coalesce(src.shape, [strides]);
  const uniforms = new Params()
    .u32(n)
    .u32(dims.shape.length)
    .u32(offset)
    .u32(0)
    .dims(dims.shape)
    .dims(dims.strides[0]!)
    .data(WORDS);
  launch(gpu, pipeline, [src, dst], uniforms, n, 'scatter');
}

/**
 * The same elements in a buffer of their own: a buffer-to-buffer copy on the queue, no shader. For a result a kernel
 * goes on to write into (scatter's), or a cast that changes nothing; a new shape alone takes viewTensor.
 */
export function copyTensor(gpu: GpuContext, x: Tensor, out: TensorType): Tensor {
  const result = allocGpu(gpu, out);
  const bytes = gpuByteSize(out.dtype, sizeOf(out.shape));
  if (bytes > 0) {
    gpu.pool.encoder().copyBufferToBuffer(gpuBuffer(x), 0, gpuBuffer(result), 0, bytes);
    gpu.pool.encoded();
  }
  return result;
}

/**
 * The same elements under a new shape (reshape, expand_dims, squeeze, flatten): a tensor sharing x's buffer, with no
 * copy and nothing encoded. Disposing either one leaves the other's data alone (see GpuStorage.view).
 */
export function viewTensor(x: Tensor, out: TensorType): Tensor {
  if (!(x.storage instanceof GpuStorage) || x.isDisposed)
    throw new Error(`${x.toString()} is not a live webgpu tensor; it cannot be viewed under a new shape`);
  if (out.dtype !== x.dtype) throw new Error(`a view keeps the dtype: ${x.dtype} cannot be viewed as ${out.dtype}`);
  return new Tensor(out.shape, out.dtype, x.storage.view());
}

/** The builder of reshape, expand_dims, squeeze and flatten: a view of `x` under the output type it is given. */
export const viewBuilder = ((_attrs: unknown, out: TensorType) => {
  requireGpu();
  if (!gpuHolds(out.dtype)) return null;
  return ({ x }: { x: Tensor }, _kattrs: unknown, kout: TensorType) => viewTensor(x, kout);
}) as WebGpuBuilder<(inputs: { x: Tensor }, attrs: unknown, out: TensorType) => Tensor>;
