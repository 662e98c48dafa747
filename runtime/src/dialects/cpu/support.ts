// Building blocks for CPU kernels: output allocation, broadcast index maps, axis iteration.

import { allocStorage, roundToFloat16 } from '../../dtype.ts';
import { broadcastStrides, shapesEqual, sizeOf, stridesOf, type Shape } from '../../shape.ts';
import { CpuStorage, Tensor, type TensorType } from '../../tensor.ts';

/** A fresh CPU tensor of the declared output type. */
export function allocOut(out: TensorType): Tensor {
  return new Tensor(out.shape, out.dtype, new CpuStorage(allocStorage(out.dtype, sizeOf(out.shape))));
}

/** float16 lives widened in a Float32Array; kernels compute in float32 and round once at the end. */
export function finish(t: Tensor): Tensor {
  if (t.dtype === 'float16') {
    const a = t.dataSync();
    for (let i = 0; i < a.length; i++) a[i] = roundToFloat16(a[i]!);
  }
  return t;
}

/**
 * For each output element, the flat index to read from an input broadcast to `outShape`;
 * null when the input already has the output's shape (read with the same index).
 */
export function broadcastIndex(input: Shape, outShape: Shape): Int32Array | null {
  if (shapesEqual(input, outShape)) return null;
  const n = sizeOf(outShape);
  const idx = new Int32Array(n);
  if (sizeOf(input) === 1) return idx;
  const strides = broadcastStrides(input, outShape);
  const rank = outShape.length;
  const counter = new Array<number>(rank).fill(0);
  let src = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = src;
    // Odometer increment, carrying into outer dimensions.
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      src += strides[d]!;
      if (counter[d]! < outShape[d]!) break;
      src -= strides[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}

/** Splits a shape around one axis: element (o, k, i) sits at (o * len + k) * inner + i. */
export function aroundAxis(shape: Shape, axis: number): { outer: number; len: number; inner: number } {
  return {
    outer: sizeOf(shape.slice(0, axis)),
    len: shape[axis] ?? 1,
    inner: sizeOf(shape.slice(axis + 1)),
  };
}

/**
 * For a reduction over `axes` (normalized), the output flat index of every input element;
 * the reduced axes get stride 0 in the output.
 */
export function reduceIndex(shape: Shape, axes: readonly number[] | null): Int32Array {
  const all = axes === null || axes.length === 0;
  const kept = shape.map((d, i) => (all || axes.includes(i) ? 1 : d));
  const outStrides = stridesOf(kept).map((s, i) => (kept[i] === 1 && shape[i] !== 1 ? 0 : s));
  const n = sizeOf(shape);
  const idx = new Int32Array(n);
  const rank = shape.length;
  const counter = new Array<number>(rank).fill(0);
  let dst = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = dst;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      dst += outStrides[d]!;
      if (counter[d]! < shape[d]!) break;
      dst -= outStrides[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}
