// Element-wise gather along one axis (gather_elements) and its adjoint on WebGPU. indices has x's rank; its element j
// reads x at j's coordinates with the axis' one replaced by indices[j]. The adjoint is written as a gather too: each
// dx element sums the dy elements whose index names it, a loop along the axis (WGSL has no float atomics).

import { normalizeAxis, sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { checkTakeIndices } from './bounds.ts';
import type { GpuContext } from './device.ts';
import { requireGpu } from './dialect.ts';
import { guarded } from './indexed.ts';
import { FLAT_INDEX, launch, MAIN_1D, MAX_RANK, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { allocGpu, gpuElementType } from './storage.ts';

const SHAPE = 4; // words: count, rank, axis, axis length of x; then a walked shape, x's strides, indices' strides
const X_STRIDES = SHAPE + MAX_RANK;
const I_STRIDES = X_STRIDES + MAX_RANK;
const WORDS = I_STRIDES + MAX_RANK;

const WRAPPED = `fn wrapped(k: i32, len: u32) -> u32 {
  let w = select(k, k + i32(len), k < 0);
  return select(u32(w), 0xffffffffu, w < 0 || w >= i32(len));
}`;

// Walks indices' shape; values move as u32 bits, so one pipeline serves f32, i32 and bool.
const GATHER = `@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
${paramsWgsl(3, WORDS)}
${WRAPPED}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let axis = pu(2u);
  var rem = i;
  var off = 0u;
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${SHAPE}u + d - 1u);
    if (d - 1u != axis) { off += (rem % size) * pu(${X_STRIDES}u + d - 1u); }
    rem = rem / size;
  }
  let k = wrapped(indices[i], pu(3u));
  if (k == 0xffffffffu) { out[i] = 0u; return; }
  out[i] = x[off + k * pu(${X_STRIDES}u + axis)];
}`;

// Walks x's shape; a coordinate past indices' extent on another axis received nothing.
const GATHER_DX = `@group(0) @binding(0) var<storage, read> indices: array<i32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;
${paramsWgsl(3, WORDS)}
${WRAPPED}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let axis = pu(2u);
  var rem = i;
  var base = 0u;
  var want = 0u;
  var inside = true;
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${SHAPE}u + d - 1u);
    let c = rem % size;
    rem = rem / size;
    if (d - 1u == axis) { want = c; }
    else {
      // x's stride slot holds indices' extent on this axis here.
      if (c >= pu(${X_STRIDES}u + d - 1u)) { inside = false; }
      base += c * pu(${I_STRIDES}u + d - 1u);
    }
  }
  var acc = 0.0;
  if (inside) {
    let step = pu(${I_STRIDES}u + axis);
    let m = pu(${X_STRIDES}u + axis);
    for (var j = 0u; j < m; j++) {
      let at = base + j * step;
      if (wrapped(indices[at], pu(3u)) == want) { acc += dy[at]; }
    }
  }
  dx[i] = acc;
}`;

export function gatherElementsBuilder(x: TensorType, indices: TensorType): GpuContext | null {
  const gpu = requireGpu();
  if (!gpuElementType(x.dtype) || (indices.dtype !== 'int32' && indices.dtype !== 'int64')) return null;
  gpu.pipelines.getPipelineSync(pipelineKey('gather_elements', 'b32,i32'), () => GATHER);
  return gpu;
}

export function gatherElements(gpu: GpuContext, x: Tensor, indices: Tensor, axis: number, out: TensorType): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('gather_elements', 'b32,i32'), () => GATHER);
  const a = normalizeAxis(axis, x.shape.length);
  const result = allocGpu(gpu, out);
  guarded(result, () => checkTakeIndices('gather_elements', indices, x.shape[a]!, result));
  const n = sizeOf(out.shape);
  const uniforms = new Params()
    .u32(n)
    .u32(x.shape.length)
    .u32(a)
    .u32(x.shape[a]!)
    .dims(indices.shape)
    .dims(stridesOf(x.shape))
    .dims([])
    .data(WORDS);
  launch(gpu, pipeline, [x, indices, result], uniforms, n, 'gather_elements');
  return result;
}

export function gatherElementsDxBuilder(indices: TensorType, dy: TensorType, out: TensorType): GpuContext | null {
  const gpu = requireGpu();
  if (dy.dtype !== 'float32' || out.dtype !== 'float32' || (indices.dtype !== 'int32' && indices.dtype !== 'int64'))
    return null;
  gpu.pipelines.getPipelineSync(pipelineKey('gather_elements_dx', 'f32,i32'), () => GATHER_DX);
  return gpu;
}

/** dy (indices' shape) summed into zeros of x's shape at the gathered positions. */
export function gatherElementsDx(
  gpu: GpuContext,
  x: Tensor,
  indices: Tensor,
  dy: Tensor,
  axis: number,
  out: TensorType,
): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('gather_elements_dx', 'f32,i32'), () => GATHER_DX);
  const a = normalizeAxis(axis, x.shape.length);
  const result = allocGpu(gpu, out);
  guarded(result, () => checkTakeIndices('gather_elements_dx', indices, x.shape[a]!, result));
  const n = sizeOf(out.shape);
  const uniforms = new Params()
    .u32(n)
    .u32(x.shape.length)
    .u32(a)
    .u32(x.shape[a]!)
    .dims(x.shape)
    .dims(indices.shape)
    .dims(stridesOf(indices.shape))
    .data(WORDS);
  // Empty indices: the loop runs zero times and dx is zeros; the binding still needs a buffer, which indices has.
  launch(gpu, pipeline, [indices, dy, result], uniforms, n, 'gather_elements_dx');
  return result;
}
