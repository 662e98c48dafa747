// Elementwise kernels of the wasm dialect: the generated `<op>_f32` / `<op>_f64` exports behind the Kernel signature.

import type { Kernel } from '../../dialect.ts';
import type { DType } from '../../dtype.ts';
import { sizeOf } from '../../shape.ts';
import type { Tensor } from '../../tensor.ts';
import { callArena, wasm } from './module.ts';
import { allocFor, readTensor, widthOf, writeTensor } from './support.ts';

type Export = (out: number, ...rest: number[]) => void;

/**
 * The kernel for one op and dtype: inputs (broadcast on the way in) and output share one padded layout, and
 * the export is called as (out, ...tensors, ...attrs, n). Null when the dtype or an input's dtype is not served.
 */
export function elementwise<I extends object, T>(
  op: string,
  dtype: DType,
  inputs: I,
  tensors: readonly (keyof I & string)[],
  attrs: readonly (keyof T & string)[],
): Kernel<I, T> | null {
  const width = widthOf(dtype);
  if (!width || tensors.some((t) => (inputs[t] as unknown as Tensor).dtype !== dtype)) return null;
  const fn = wasm()[`${op}_${width}`] as Export | undefined;
  if (typeof fn !== 'function') throw new Error(`the wasm module has no ${op}_${width}; run \`npm run build:wasm\``);
  return (given, attrValues, out) => {
    const n = sizeOf(out.shape);
    const arena = callArena();
    const outP = allocFor(arena, width, n);
    const ptrs = tensors.map(() => allocFor(arena, width, n));
    tensors.forEach((t, i) => writeTensor(arena, width, ptrs[i]!, given[t] as unknown as Tensor, out.shape));
    fn(outP, ...ptrs, ...attrs.map((a) => Number(attrValues[a])), n);
    return readTensor(arena, width, outP, out);
  };
}
