// The interior of a padded tensor for CPU kernels: where each element of x sits in pad(x).

import { stridesOf } from '../../shape.ts';

/** For each element of x (row-major), its flat index in the padded output. */
export function interiorIndex(shape: readonly number[], pads: readonly number[]): Int32Array {
  const rank = shape.length;
  const padded = shape.map((d, i) => d + pads[i]! + pads[i + rank]!);
  const strides = stridesOf(padded);
  const n = shape.reduce((a, b) => a * b, 1);
  const idx = new Int32Array(n);
  const counter = new Array<number>(rank).fill(0);
  let dst = shape.reduce((acc, _, d) => acc + pads[d]! * strides[d]!, 0);
  for (let i = 0; i < n; i++) {
    idx[i] = dst;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      dst += strides[d]!;
      if (counter[d]! < shape[d]!) break;
      dst -= strides[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}
