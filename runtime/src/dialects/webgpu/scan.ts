// Scans along one axis (cumsum, cumprod, and cumsum's reverse-order adjoint): one invocation per line, the axis as (outer, len, inner).

import type { DType } from '../../dtype.ts';
import { normalizeAxis, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from './kernel.ts';
import { allocGpu, gpuElementType } from './storage.ts';

const WORDS = 4; // lines, len, inner, exclusive

export interface Scan {
  readonly op: string;
  /** Identity of the fold (0 or 1), and its step as WGSL over `acc` and `v`. */
  readonly identity: 0 | 1;
  readonly step: string;
  /** Fold from the end of each line (the adjoint of a forward scan). */
  readonly reverse?: boolean;
}

/** What a line is read as (the input's GPU element type) and folded in (the output's: f32, or i32 that wraps). */
interface Types {
  readonly x: 'f32' | 'i32' | 'u32';
  readonly acc: 'f32' | 'i32';
}

function source(def: Scan, t: Types): string {
  const k = def.reverse ? 'len - 1u - t' : 't';
  const identity = t.acc === 'f32' ? `${def.identity}.0` : `${def.identity}i`;
  return `@group(0) @binding(0) var<storage, read> x: array<${t.x}>;
@group(0) @binding(1) var<storage, read_write> out: array<${t.acc}>;
${paramsWgsl(2, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let len = pu(1u);
  let inner = pu(2u);
  let exclusive = pu(3u) != 0u;
  let base = (i / inner) * len * inner + i % inner;
  var acc: ${t.acc} = ${identity};
  for (var t = 0u; t < len; t++) {
    let at = base + (${k}) * inner;
    let v = ${t.x === t.acc ? 'x[at]' : `${t.acc}(x[at])`};
    // Exclusive scans store the fold before this element joins it.
    if (exclusive) { out[at] = acc; }
    acc = ${def.step};
    if (!exclusive) { out[at] = acc; }
  }
}`;
}

/**
 * The element types of a scan from `x` into `out`, or why the GPU cannot give it exactly. float32 folds in f32; an
 * int32 output (cumsum's dtype: int32) folds in i32, wrapping as NumPy's int32 does (WGSL's i32 arithmetic wraps); an
 * int64 output (bool and integer inputs by default, as NumPy accumulates them) is refused: WebGPU holds int64 as int32,
 * and a sum or product past int32 would come back wrapped, silently. A float input into an integer dtype stays on the
 * CPU. The refusal says what to pass instead.
 */
function scanTypes(op: string, x: DType, out: DType): Types | string | null {
  const xt = gpuElementType(x);
  if (!xt) return null;
  if (out === 'float32') return { x: xt, acc: 'f32' };
  if (out === 'int32' && xt !== 'f32') return { x: xt, acc: 'i32' };
  const fix = "pass dtype: 'float32', or run it on the CPU (await x.to('cpu'))";
  if (out === 'int32') return `${op} of ${x} into int32 runs on the CPU only; ${fix}`;
  if (out === 'int64')
    return (
      `${op} of ${x} ${xt === 'f32' ? 'into int64' : "accumulates in int64 (as NumPy's does)"}, which WebGPU holds ` +
      `as int32, so a result past int32 would come back wrapped; ` +
      (xt === 'f32'
        ? fix
        : `pass dtype: 'int32' (wrapping as NumPy's int32 does) or 'float32', or run it on the CPU (await x.to('cpu'))`)
    );
  return null;
}

/** build() of a scan; axis null scans the flattened input. Element types as scanTypes says. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function scan<K extends (inputs: any, attrs: any, out: TensorType) => Tensor>(
  def: Scan,
  input: 'x' | 'dy' = 'x',
): WebGpuBuilder<K> {
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    const src = (inputs as Record<string, Tensor>)[input]!;
    const types = scanTypes(def.op, src.dtype, out.dtype);
    // A builder's error is the reason dispatch gives among the dialects it tried.
    if (typeof types === 'string') throw new Error(types);
    if (!types) return null;
    const pipeline = gpu.pipelines.getPipelineSync(
      pipelineKey(def.op, types.x === types.acc ? types.acc : `${types.x}>${types.acc}`),
      () => source(def, types),
    );
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
