// WebGPU kernel of raf.op.einsum (specs/linalg/einsum.yaml), float32, one to four inputs and up to 8 labels: each
// invocation computes one output element, looping over the summed labels with every input's stride per label.

import type { EinsumKernel } from '../../../generated/bridge/einsum.ts';
import { sizeOf } from '../../../shape.ts';
import { einsumPlan } from '../../../ops/einsum.rule.ts';
import { requireGpu } from '../dialect.ts';
import {
  FLAT_INDEX,
  launch,
  MAIN_1D,
  MAX_RANK,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from '../kernel.ts';
import { allocGpu } from '../storage.ts';

const SIZES = 4; // words: count, output rank, label count, summed count; then sizes and each input's strides
const STRIDES = SIZES + MAX_RANK;
const MAX_INPUTS = 4;
const WORDS = STRIDES + MAX_INPUTS * MAX_RANK;
const NAMES = ['a', 'b', 'c', 'e'];
const strideAt = (k: number) => STRIDES + k * MAX_RANK;

const source = (n: number) => {
  const ins = NAMES.slice(0, n);
  return `${ins.map((x, k) => `@group(0) @binding(${k}) var<storage, read> ${x}: array<f32>;`).join('\n')}
@group(0) @binding(${n}) var<storage, read_write> out: array<f32>;
${paramsWgsl(n + 1, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let outRank = pu(1u);
  let labels = pu(2u);
  var rem = i;
  ${ins.map((x) => `var o${x} = 0u;`).join('\n  ')}
  for (var d = outRank; d > 0u; d--) {
    let size = pu(${SIZES}u + d - 1u);
    let c = rem % size;
    rem = rem / size;
    ${ins.map((x, k) => `o${x} += c * pu(${strideAt(k)}u + d - 1u);`).join('\n    ')}
  }
  var acc = 0.0;
  for (var t = 0u; t < pu(3u); t++) {
    var r = t;
    ${ins.map((x) => `var p${x} = o${x};`).join('\n    ')}
    for (var d = labels; d > outRank; d--) {
      let size = pu(${SIZES}u + d - 1u);
      let c = r % size;
      r = r / size;
      ${ins.map((x, k) => `p${x} += c * pu(${strideAt(k)}u + d - 1u);`).join('\n      ')}
    }
    acc += ${ins.map((x) => `${x}[p${x}]`).join(' * ')};
  }
  out[i] = acc;
}`;
};

export const einsumWebgpu: WebGpuBuilder<EinsumKernel> = (_attrs, out, { xs }) => {
  const gpu = requireGpu();
  const n = xs.length;
  if (out.dtype !== 'float32' || n < 1 || n > MAX_INPUTS || xs.some((x) => x.dtype !== 'float32')) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('einsum', 'f32', String(n)), () => source(n));
  return ({ xs }, { equation }, kout) => {
    const plan = einsumPlan(
      equation,
      xs.map((x) => x.shape),
    );
    if (plan.labels.length > MAX_RANK) throw new Error(`einsum on WebGPU takes at most ${MAX_RANK} labels`);
    const result = allocGpu(gpu, kout);
    const count = sizeOf(kout.shape);
    const uniforms = new Params()
      .u32(count)
      .u32(plan.outRank)
      .u32(plan.labels.length)
      .u32(sizeOf(plan.sizes.slice(plan.outRank)))
      .dims(plan.sizes);
    for (const st of plan.strides) uniforms.dims(st);
    const words = uniforms.data(WORDS);
    launch(gpu, pipeline, [...xs, result], words, count, 'einsum');
    return result;
  };
};
