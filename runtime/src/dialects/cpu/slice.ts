// Strided walking for CPU kernels (and the wasm layout ops' index tables): the flat input index of every output element.

import type { AxisSlice } from '../../ops/slice.ts';
import { stridesOf } from '../../shape.ts';

export function sliceIndex(shape: readonly number[], slices: readonly AxisSlice[]): Int32Array {
  const strides = stridesOf(shape);
  return stridedIndex(
    slices.reduce((acc, s, d) => acc + s.start * strides[d]!, 0),
    slices.map((s, d) => s.step * strides[d]!),
    slices.map((s) => s.count),
  );
}

/**
 * The flat source index of every element of an output of shape `counts`, walked in row-major order from `start`,
 * moving `steps[d]` elements of the source per step along axis d (a slice's steps, or a transpose's permuted strides).
 */
export function stridedIndex(start: number, steps: readonly number[], counts: readonly number[]): Int32Array {
  const n = counts.reduce((a, b) => a * b, 1);
  const idx = new Int32Array(n);
  const rank = counts.length;
  const counter = new Array<number>(rank).fill(0);
  let src = start;
  for (let i = 0; i < n; i++) {
    idx[i] = src;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      src += steps[d]!;
      if (counter[d]! < counts[d]!) break;
      src -= steps[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}
