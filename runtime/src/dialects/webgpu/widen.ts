// The WebGPU dialect's float16 fallback: an op without a float16 kernel runs its float32 kernel between casts on the GPU.

import type { AnyDialectOp, Kernel, KernelInputs, OutType } from '../../dialect.ts';
import { Tensor, type TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { castOnGpu } from './kernels/cast.ts';

const widenType = (t: TensorType): TensorType => (t.dtype === 'float16' ? { shape: t.shape, dtype: 'float32' } : t);
const widenOut = (out: OutType): OutType => (Array.isArray(out) ? out.map(widenType) : widenType(out as TensorType));

/** The inputs with each float16 tensor (in a Tensor[] too) replaced by `f(tensor)`; null inputs stay null. */
function mapHalves(inputs: KernelInputs, f: (t: Tensor) => Tensor): KernelInputs {
  const one = (t: Tensor) => (t.dtype === 'float16' ? f(t) : t);
  return Object.fromEntries(
    Object.entries(inputs).map(([k, v]) => [k, v === null ? null : Array.isArray(v) ? v.map(one) : one(v as Tensor)]),
  );
}

/**
 * For a call `d.build` declined that reads or writes float16: d's kernel built for the same types with float16 replaced
 * by float32, wrapped so float16 inputs are cast up before it and float16 outputs cast down after, each rounded once at
 * that store (the CPU dialect's semantics too). Null when there is no float16 involved or no float32 kernel either.
 */
export function widenFloat16(
  d: AnyDialectOp,
  attrs: unknown,
  out: OutType,
  inputs: KernelInputs,
): Kernel<KernelInputs, unknown, OutType> | null {
  const outs = Array.isArray(out) ? out : [out as TensorType];
  const ins = Object.values(inputs).flatMap((v) => (v === null ? [] : Array.isArray(v) ? v : [v as Tensor]));
  if (![...outs, ...ins].some((t) => t.dtype === 'float16')) return null;
  // build() reads only the inputs' dtypes (kernels are cached per dtype, not per tensor or shape): float32 stand-ins
  // over the same storage answer it without a conversion.
  const kernel = d.build(
    attrs,
    widenOut(out),
    mapHalves(inputs, (t) => new Tensor(t.shape, 'float32', t.storage)),
  ) as Kernel<KernelInputs, unknown, OutType> | null;
  if (!kernel) return null;
  const gpu = requireGpu();
  return (kin, kattrs, kout) => {
    const temps: Tensor[] = [];
    const wide = mapHalves(kin, (t) => {
      const w = castOnGpu(gpu, t, 'float32');
      temps.push(w);
      return w;
    });
    const result = kernel(wide, kattrs, widenOut(kout));
    const results = result instanceof Tensor ? [result] : (result as readonly Tensor[]);
    // The queue runs the kernel before any later write to a buffer returned now, so they can go back to the pool at once.
    for (const t of temps) if (!results.includes(t)) t.dispose();
    const kouts = Array.isArray(kout) ? kout : [kout as TensorType];
    const narrowed = results.map((r, i) => {
      if (kouts[i]!.dtype !== 'float16') return r;
      const h = castOnGpu(gpu, r, 'float16');
      r.dispose();
      return h;
    });
    return result instanceof Tensor ? narrowed[0]! : narrowed;
  };
}
