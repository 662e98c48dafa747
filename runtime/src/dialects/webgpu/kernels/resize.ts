// WebGPU kernel of raf.op.resize (specs/nn/resize.yaml): one pass per resized axis, one invocation per output element
// summing its taps; the tap tables (input index and weight per output index, padded to the widest) come from
// resizePlan on the host and are uploaded per call. The tables and the passes' intermediates are disposed as soon as
// their pass is encoded: the pool holds a buffer released while its batch is open away from uploads until the batch
// is submitted, so no queued pass reads another's data. An output index whose first tap index is -1 lies outside x
// (tf_crop_and_resize) and takes extrapolation_value. float32 only.

import type { ResizeKernel } from '../../../generated/bridge/resize.ts';
import { resizePlan } from '../../../ops/resize.rule.ts';
import { sizeOf } from '../../../shape.ts';
import { tensor, type Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { allocGpu, uploadTensor } from '../storage.ts';

const SOURCE = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> tap_at: array<i32>;
@group(0) @binding(2) var<storage, read> tap_w: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
${paramsWgsl(4, 6)}
${MAIN_1D} {
  ${FLAT_INDEX}
  let total = pu(0u);
  if (i >= total) { return; }
  let in_len = pu(1u);
  let out_len = pu(2u);
  let inner = pu(3u);
  let taps = pu(4u);
  let k = i % inner;
  let o = (i / inner) % out_len;
  let a = i / (inner * out_len);
  if (tap_at[o * taps] < 0) {
    y[i] = pf(5u);
    return;
  }
  var acc = 0.0;
  for (var t = 0u; t < taps; t++) {
    let src = u32(tap_at[o * taps + t]);
    acc += tap_w[o * taps + t] * x[(a * in_len + src) * inner + k];
  }
  y[i] = acc;
}`;

export const resizeWebgpu: WebGpuBuilder<ResizeKernel> = (_attrs, out, { x }) => {
  const gpu = requireGpu();
  if (out.dtype !== 'float32' || x.dtype !== 'float32') return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('resize', 'f32'), () => SOURCE);
  return ({ x }, attrs, kout) => {
    const plan = resizePlan({ x, ...attrs });
    let cur: Tensor = x;
    const shape = [...x.shape];
    for (const { axis, inLen, outLen, taps, outside } of plan.axes) {
      const width = Math.max(1, ...taps.map((t) => t.length));
      const at = new Int32Array(outLen * width);
      const w = new Float32Array(outLen * width);
      taps.forEach((t, o) => t.forEach(([i, v], k) => ((at[o * width + k] = i), (w[o * width + k] = v))));
      outside?.forEach((out, o) => out && (at[o * width] = -1));
      shape[axis] = outLen;
      const next = allocGpu(gpu, { shape: [...shape], dtype: 'float32' });
      const total = sizeOf(shape);
      const params = new Params()
        .u32(total)
        .u32(inLen)
        .u32(outLen)
        .u32(sizeOf(shape.slice(axis + 1)))
        .u32(width)
        .f32(attrs.extrapolation_value);
      const atT = uploadTensor(gpu, tensor(at, { dtype: 'int32', shape: [at.length] }));
      const wT = uploadTensor(gpu, tensor(w, { dtype: 'float32', shape: [w.length] }));
      launch(gpu, pipeline, [cur, atT, wT, next], params.data(6), total, 'resize');
      atT.dispose();
      wT.dispose();
      if (cur !== x) cur.dispose();
      cur = next;
    }
    // No axis changed: a copy, so the output never aliases x.
    if (cur === x) {
      const copy = allocGpu(gpu, kout);
      const total = sizeOf(kout.shape);
      const at = uploadTensor(gpu, tensor([0], { dtype: 'int32', shape: [1] }));
      const w = uploadTensor(gpu, tensor([1], { dtype: 'float32', shape: [1] }));
      launch(
        gpu,
        pipeline,
        [x, at, w, copy],
        new Params().u32(total).u32(1).u32(1).u32(total).u32(1).f32(0).data(6),
        total,
        'resize',
      );
      at.dispose();
      w.dispose();
      return copy;
    }
    return cur;
  };
};
