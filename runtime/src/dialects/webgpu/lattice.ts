// Placing a tensor on a lattice inside a larger filled one (pad, strided_slice_dx), and reading it back out (pad_dx, strided_slice).

import type { AxisSlice } from '../../ops/slice.ts';
import { sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { gather } from './gather.ts';
import { FLAT_INDEX, launch, MAIN_1D, MAX_RANK, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { allocGpu } from './storage.ts';

// Words: count, rank, fill bits; then per axis the output size, first lattice index, step, count, and src stride.
const SHAPE = 3;
const START = SHAPE + MAX_RANK;
const STEP = START + MAX_RANK;
const COUNT = STEP + MAX_RANK;
const STRIDE = COUNT + MAX_RANK;
const WORDS = STRIDE + MAX_RANK;

// Values move as u32 bits (the fill is pre-encoded on the host), so one pipeline serves f32, i32 and bool.
// Start and step are signed: WGSL's i32 % and / truncate toward zero, so (c - start) % step == 0 tests lattice
// membership for negative steps too, and the quotient is the source coordinate (in range only when on the lattice).
const PLACE = `@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
${paramsWgsl(2, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  var rem = i;
  var off = 0u;
  for (var d = pu(1u); d > 0u; d--) {
    let size = pu(${SHAPE}u + d - 1u);
    let c = i32(rem % size);
    rem = rem / size;
    let rel = c - bitcast<i32>(pu(${START}u + d - 1u));
    let step = bitcast<i32>(pu(${STEP}u + d - 1u));
    let q = rel / step;
    if (rel % step != 0 || q < 0 || u32(q) >= pu(${COUNT}u + d - 1u)) { out[i] = pu(2u); return; }
    off += u32(q) * pu(${STRIDE}u + d - 1u);
  }
  out[i] = src[off];
}`;

export function warmPlace(gpu: GpuContext): void {
  gpu.pipelines.getPipelineSync(pipelineKey('place', 'b32'), () => PLACE);
}

/** The fill value as the u32 bits the output dtype stores (bool is widened to u32, see storage.ts). */
function fillBits(dtype: TensorType['dtype'], value: number): number {
  if (dtype === 'float32') return new Uint32Array(Float32Array.of(value).buffer)[0]!;
  if (dtype === 'int32') return Math.trunc(value) | 0;
  if (dtype === 'int64') {
    // Held as i32 (storage.ts): a fill int32 cannot hold is refused, never wrapped.
    const v = Math.trunc(value);
    if (v < -(2 ** 31) || v > 2 ** 31 - 1)
      throw new RangeError(`fill value ${value} does not fit the int32 words WebGPU holds int64 in`);
    return v | 0;
  }
  return value ? 1 : 0;
}

/** A tensor of type `out` holding src's elements at the per-axis lattices and `fill` everywhere else. */
export function place(
  gpu: GpuContext,
  src: Tensor,
  lattice: readonly AxisSlice[],
  fill: number,
  out: TensorType,
): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('place', 'b32'), () => PLACE);
  const result = allocGpu(gpu, out);
  const n = sizeOf(out.shape);
  const p = new Params()
    .u32(n)
    .u32(out.shape.length)
    .u32(fillBits(out.dtype, fill))
    .dims(out.shape)
    .dims(lattice.map((l) => l.start))
    .dims(lattice.map((l) => l.step))
    .dims(lattice.map((l) => l.count))
    .dims(stridesOf(src.shape));
  launch(gpu, pipeline, [src, result], p.data(WORDS), n, 'place');
  return result;
}

/** The interior of pad(x, pads): x's axis d starts at pads[d] (ONNX layout, leading amounts first). */
export function padLattice(shape: readonly number[], pads: readonly number[]): AxisSlice[] {
  return shape.map((count, d) => ({ start: pads[d]!, step: 1, count }));
}

/** The elements of a larger tensor `src` on the lattice, as a tensor of type `out`; a strided gather. */
export function pick(gpu: GpuContext, src: Tensor, lattice: readonly AxisSlice[], out: TensorType): Tensor {
  const strides = stridesOf(src.shape);
  const offset = lattice.reduce((acc, l, d) => acc + l.start * strides[d]!, 0);
  // Negative steps give negative strides: Params stores them as two's complement and WGSL's u32 arithmetic wraps,
  // so the sum still lands on the right element.
  return gather(
    gpu,
    src,
    out,
    lattice.map((l, d) => l.step * strides[d]!),
    offset,
  );
}
