// Strided-slice walking for CPU kernels: the flat input index of every output element.

import type { AxisSlice } from '../../ops/slice.ts';
import { stridesOf } from '../../shape.ts';

export function sliceIndex(shape: readonly number[], slices: readonly AxisSlice[]): Int32Array {
  const strides = stridesOf(shape);
  const counts = slices.map((s) => s.count);
  const n = counts.reduce((a, b) => a * b, 1);
  const idx = new Int32Array(n);
  const rank = shape.length;
  const counter = new Array<number>(rank).fill(0);
  let src = slices.reduce((acc, s, d) => acc + s.start * strides[d]!, 0);
  const step = slices.map((s, d) => s.step * strides[d]!);
  for (let i = 0; i < n; i++) {
    idx[i] = src;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      src += step[d]!;
      if (counter[d]! < counts[d]!) break;
      src -= step[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}
