// WebGPU kernel of raf.op.topk (specs/tensor/topk.yaml): one invocation per element of x, which counts the elements of
// its line that come before it (greater, or smaller when largest is false; equal ones with a lower index) and, when
// that rank is below k, writes itself to that place; NaN ranks above +inf, as on the CPU. Float32 only. raf-op-ignores: sorted (always sorted, as on the CPU).

import type { TopkKernel } from '../../../generated/bridge/topk.ts';
import { sizeOf } from '../../../shape.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { isNanWgsl } from '../row-fold.ts';
import { allocGpu } from '../storage.ts';

const WORDS = 5; // n, len, inner, k, largest

const SOURCE = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
${paramsWgsl(3, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let len = pu(1u);
  let inner = pu(2u);
  let k = pu(3u);
  let largest = pu(4u) != 0u;
  let r = i % inner;
  let t = (i / inner) % len;
  let o = i / (inner * len);
  let base = o * len * inner + r;
  let v = x[i];
  var rank = 0u;
  for (var s = 0u; s < len; s++) {
    let w = x[base + s * inner];
    // NaN ranks above every number, +inf included, whether largest or not (PyTorch's order, the CPU's): first when
    // largest, last otherwise; NaNs and equal numbers keep index order. NaN is tested by its bits (see isNanWgsl).
    let wn = ${isNanWgsl('w')};
    let vn = ${isNanWgsl('v')};
    let numbers = select((w < v), (w > v), largest) || ((w == v) && (s < t));
    let ahead = select(select(numbers, !largest, vn), select(largest, (s < t), vn), wn);
    rank += select(0u, 1u, ahead);
  }
  if (rank < k) {
    let dst = (o * k + rank) * inner + r;
    values[dst] = v;
    indices[dst] = i32(t);
  }
}`;

export const topkWebgpu: WebGpuBuilder<TopkKernel> = (_attrs, outs, { x }) => {
  const gpu = requireGpu();
  if (x.dtype !== 'float32' || outs[0]!.dtype !== 'float32') return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('topk', 'f32'), () => SOURCE);
  return ({ x }, { k, axis, largest }, kouts): Tensor[] => {
    const values = allocGpu(gpu, kouts[0]!);
    const indices = allocGpu(gpu, kouts[1]!);
    const params = new Params()
      .u32(x.size)
      .u32(x.shape[axis]!)
      .u32(sizeOf(x.shape.slice(axis + 1)))
      .u32(k)
      .u32(largest ? 1 : 0)
      .data(WORDS);
    if (k > 0) launch(gpu, pipeline, [x, values, indices], params, x.size, 'topk');
    return [values, indices];
  };
};
