// Values FromOnnx knows at import: ONNX tensors as raf-op tensors (int64 narrowed with a range check), dtype codes.

import type { DType } from '../../dtype.ts';
import { tensor, Tensor } from '../../tensor.ts';
import { isSymbolic } from '../trace.ts';
import type { OnnxTensor } from './proto.ts';

/** ONNX element type codes a `dtype` arg can take (Cast's `to`); int64 narrows to int32 with a range check. */
const ONNX_DTYPES: Readonly<Record<number, DType>> = {
  1: 'float32',
  6: 'int32',
  7: 'int32',
  9: 'bool',
  10: 'float16',
  11: 'float64',
};

export function onnxDType(code: number): DType {
  const d = ONNX_DTYPES[code];
  if (!d) throw new Error(`ONNX element type ${code} has no raf-op dtype`);
  return d;
}

const INT32_MAX = 2 ** 31 - 1;

/** An ONNX tensor as a concrete tensor; int64 narrows to int32 and refuses values that do not fit. */
export function constTensor(t: OnnxTensor): Tensor {
  if (t.dtype === 'int64') {
    // INT64_MAX/MIN are ONNX's "to the end" markers (Slice's ends); they clamp rather than wrap.
    const values = t.values.map((v) => (v >= 2 ** 62 ? INT32_MAX : v <= -(2 ** 62) ? -INT32_MAX - 1 : v));
    const bad = values.find((v) => v > INT32_MAX || v < -INT32_MAX - 1);
    if (bad !== undefined) throw new Error(`int64 tensor '${t.name}' holds ${bad}, which int32 cannot represent`);
    return tensor(values, { dtype: 'int32', shape: t.shape });
  }
  return tensor(t.values, { dtype: t.dtype, shape: t.shape });
}

/** The numbers of a value known at import; throws for one computed at run time. */
export function valuesOf(t: Tensor, what: string): number[] {
  if (isSymbolic(t)) throw new Error(`${what} is computed at run time, but must be known when the model is imported`);
  return Array.from((t as Tensor).dataSync() as ArrayLike<number>);
}
