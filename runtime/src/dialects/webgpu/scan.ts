// Scans along one axis (cumsum, cumprod, and cumsum's reverse-order adjoint): one invocation per line, the axis as (outer, len, inner).

import { normalizeAxis, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from './kernel.ts';
import { allocGpu } from './storage.ts';

const WORDS = 4; // lines, len, inner, exclusive

export interface Scan {
  readonly op: string;
  /** Identity and step of the fold, as WGSL over `acc` and `v`. */
  readonly identity: string;
  readonly step: string;
  /** Fold from the end of each line (the adjoint of a forward scan). */
  readonly reverse?: boolean;
}

function source(def: Scan): string {
  const k = def.reverse ? 'len - 1u - t' : 't';
  return `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
${paramsWgsl(2, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let len = pu(1u);
  let inner = pu(2u);
  let exclusive = pu(3u) != 0u;
  let base = (i / inner) * len * inner + i % inner;
  var acc = ${def.identity};
  for (var t = 0u; t < len; t++) {
    let at = base + (${k}) * inner;
    let v = x[at];
    // Exclusive scans store the fold before this element joins it.
    if (exclusive) { out[at] = acc; }
    acc = ${def.step};
    if (!exclusive) { out[at] = acc; }
  }
}`;
}

/** build() of a scan; axis null scans the flattened input. Float32 only (an int32 `dtype` stays on the CPU). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function scan<K extends (inputs: any, attrs: any, out: TensorType) => Tensor>(
  def: Scan,
  input: 'x' | 'dy' = 'x',
): WebGpuBuilder<K> {
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    const src = (inputs as Record<string, Tensor>)[input]!;
    if (src.dtype !== 'float32' || out.dtype !== 'float32') return null;
    const pipeline = gpu.pipelines.getPipelineSync(pipelineKey(def.op, 'f32'), () => source(def));
    const kernel = (
      kin: Record<string, Tensor>,
      { axis, exclusive }: { axis: number | null; exclusive: boolean },
      kout: TensorType,
    ): Tensor => {
      const x = kin[input]!;
      const n = x.size;
      const a = axis === null ? null : normalizeAxis(axis, x.shape.length);
      const len = a === null ? n : x.shape[a]!;
      const inner = a === null ? 1 : sizeOf(x.shape.slice(a + 1));
      const lines = len === 0 ? 0 : n / len;
      const result = allocGpu(gpu, kout);
      launch(
        gpu,
        pipeline,
        [x, result],
        new Params()
          .u32(lines)
          .u32(len)
          .u32(inner)
          .u32(exclusive ? 1 : 0)
          .data(WORDS),
        lines,
        def.op,
      );
      return result;
    };
    return kernel as unknown as K;
  };
}
