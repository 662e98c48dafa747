// Values FromOnnx knows at import: ONNX tensors as raf-op tensors (int64 kept, exact within ±2^53), dtype codes.

import { INT64_EXACT, type DType } from '../../dtype.ts';
import { sizeOf } from '../../shape.ts';
import { fromStorage, tensor, Tensor } from '../../tensor.ts';
import { isSymbolic } from '../trace.ts';
import { onnxTypeName, type OnnxTensor } from './proto.ts';
import { markStrings } from '../../strings.ts';

/** ONNX element type codes a `dtype` arg can take (Cast's `to`). */
const ONNX_DTYPES: Readonly<Record<number, DType>> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  6: 'int32',
  7: 'int64',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  4: 'uint16',
  5: 'int16',
  12: 'uint32',
  13: 'uint64',
  16: 'bfloat16',
};

export function onnxDType(code: number): DType {
  const d = ONNX_DTYPES[code];
  if (!d) throw new Error(`ONNX element type ${code} (${onnxTypeName(code)}) has no raf-op dtype`);
  return importedDType(d);
}

/**
 * What ONNX float16 and float32 values become while a model converts (see FromOnnxOptions.float16 and .float32):
 * float16 as float16 or widened to float32; both widened to float64 in the float64 mode.
 */
let floatsAs: { readonly float16: 'float16' | 'float32' | 'float64'; readonly float32: 'float32' | 'float64' } = {
  float16: 'float16',
  float32: 'float32',
};

/** Runs `fn` (a conversion) with ONNX float16 values held, and computed, in `as`. */
export function withFloat16As<T>(as: 'float16' | 'float32', fn: () => T): T {
  return withFloatsAs({ float16: as, float32: 'float32' }, fn);
}

/** Runs `fn` (a conversion) with ONNX float16 and float32 values held, and computed, as `as` says. */
export function withFloatsAs<T>(as: typeof floatsAs, fn: () => T): T {
  const outer = floatsAs;
  floatsAs = as;
  try {
    return fn();
  } finally {
    floatsAs = outer;
  }
}

/** The dtype an ONNX value's element type becomes in the graph being converted. */
export function importedDType(d: DType): DType {
  return d === 'float16' ? floatsAs.float16 : d === 'float32' ? floatsAs.float32 : d;
}

/**
 * An ONNX tensor as a concrete tensor. int64 stays int64 (exact within ±2^53, see dtype.ts); values beyond are refused
 * naming the tensor, except INT64_MAX/MIN, ONNX's "to the end" markers (Slice's ends), which clamp to ±(2^53 - 1).
 */
export function constTensor(t: OnnxTensor): Tensor {
  if (t.strings) return markStrings(tensor(Int32Array.from(t.data), { dtype: 'int32', shape: t.shape }));
  if (t.dtype === 'int64') {
    const values = t.values.map((v) => (v >= 2 ** 62 ? INT64_EXACT : v <= -(2 ** 62) ? -INT64_EXACT : v));
    const bad = values.find((v) => !Number.isSafeInteger(v));
    if (bad !== undefined)
      throw new Error(`int64 tensor '${t.name}' holds ${bad}, beyond ±2^53, which raf-op's int64 holds exactly`);
    return tensor(values, { dtype: 'int64', shape: t.shape });
  }
  if (t.dtype === 'uint64') {
    const bad = t.values.find((v) => !Number.isSafeInteger(v) || v < 0);
    if (bad !== undefined)
      throw new Error(
        `uint64 tensor '${t.name}' holds ${BigInt(bad)}, beyond 2^53, which raf-op's uint64 holds exactly (it refuses rather than rounds)`,
      );
    return tensor(t.values, { dtype: 'uint64', shape: t.shape });
  }
  // Float weights (nearly all of a model's bytes) go straight into a typed array; tensor() would first copy them
  // through a flat list and check each element, about a third of ppocr-det-v4's import. A count that does not fill
  // the shape still takes tensor(), which reports it.
  const data = t.data;
  // float16 weights computed in float32: the decoder's widened values (exact) become the storage as they are.
  if (t.dtype === 'float16' && floatsAs.float16 === 'float32' && sizeOf(t.shape) === data.length)
    return fromStorage(t.shape, 'float32', data instanceof Float32Array ? data : Float32Array.from(data));
  // The float64 mode: float16 and float32 weights widened (exactly).
  if ((t.dtype === 'float16' || t.dtype === 'float32') && importedDType(t.dtype) === 'float64')
    return sizeOf(t.shape) === data.length
      ? fromStorage(t.shape, 'float64', Float64Array.from(data))
      : tensor(t.values, { dtype: 'float64', shape: t.shape });
  if (sizeOf(t.shape) === data.length) {
    // The decoder's own typed arrays (over a copy of the raw bytes) become the storage as they are.
    if (t.dtype === 'float32' && data instanceof Float32Array) return fromStorage(t.shape, 'float32', data);
    if (t.dtype === 'float64' && data instanceof Float64Array) return fromStorage(t.shape, 'float64', data);
    if (t.dtype === 'float32' || t.dtype === 'float64')
      return fromStorage(t.shape, t.dtype, t.dtype === 'float32' ? Float32Array.from(data) : Float64Array.from(data));
    if (t.dtype === 'uint8' && data instanceof Uint8Array) return fromStorage(t.shape, 'uint8', data);
    if (t.dtype === 'int8' && data instanceof Int8Array) return fromStorage(t.shape, 'int8', data);
    if (t.dtype === 'int32' && data instanceof Int32Array) return fromStorage(t.shape, 'int32', data);
    if (t.dtype === 'int16' && data instanceof Int16Array) return fromStorage(t.shape, 'int16', data);
    if (t.dtype === 'uint16' && data instanceof Uint16Array) return fromStorage(t.shape, 'uint16', data);
    if (t.dtype === 'uint32' && data instanceof Uint32Array) return fromStorage(t.shape, 'uint32', data);
    // bfloat16 raw data is decoded into exact float32 values, the storage bfloat16 keeps.
    if (t.dtype === 'bfloat16' && data instanceof Float32Array) return fromStorage(t.shape, 'bfloat16', data);
  }
  return tensor(t.values, { dtype: t.dtype, shape: t.shape });
}

/** The numbers of a value known at import; throws for one computed at run time. */
export function valuesOf(t: Tensor, what: string): number[] {
  if (isSymbolic(t)) throw new Error(`${what} is computed at run time, but must be known when the model is imported`);
  return Array.from((t as Tensor).dataSync() as ArrayLike<number>);
}
