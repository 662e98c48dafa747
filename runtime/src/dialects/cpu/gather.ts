// Gather and its scatter-add adjoint along one axis, shared by the take, take_dx and embedding CPU kernels.

import { OpError } from '../../errors.ts';
import type { Tensor } from '../../tensor.ts';
import { aroundAxis } from './support.ts';

/**
 * Visits each run of `inner` elements x[..., indices[j], ...] copies along axis, as (its first output index, its first
 * input index, inner); negative indices count from the end, and one out of range is an OpError naming `op`.
 */
function forEachRun(
  op: string,
  x: Tensor,
  indices: Tensor,
  axis: number,
  run: (dst: number, src: number, inner: number) => void,
): void {
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  const idx = indices.dataSync();
  const m = idx.length;
  for (let j = 0; j < m; j++) {
    let k = idx[j]!;
    if (k < 0) k += len;
    if (k < 0 || k >= len) throw new OpError(op, `index ${idx[j]} is out of range for axis of size ${len}`, 'indices');
    for (let o = 0; o < outer; o++) run((o * m + j) * inner, (o * len + k) * inner, inner);
  }
}

/** Visits (outIndex, inIndex) pairs of x[..., indices[j], ...] along axis; negative indices count from the end. */
export function forEachGather(
  op: string,
  x: Tensor,
  indices: Tensor,
  axis: number,
  visit: (yi: number, xi: number) => void,
): void {
  forEachRun(op, x, indices, axis, (dst, src, inner) => {
    for (let i = 0; i < inner; i++) visit(dst + i, src + i);
  });
}

/** A tensor's elements: its storage's typed array (or a plain list). */
type Elements = { length: number; [i: number]: number };

/**
 * y = x[..., indices[j], ...] along axis, copying whole runs of `inner` elements (a row of an embedding table, a
 * slice of a take) at once: typed-array `set` where both sides are typed arrays of one kind and runs are long, an
 * index loop otherwise. take and embedding use it; take_dx, which adds, visits elements through forEachGather.
 */
export function gatherCopy(op: string, x: Tensor, indices: Tensor, axis: number, ys: Elements): void {
  const xs = x.dataSync() as unknown as Elements;
  // set() pays for a subarray view per run: worth it from a few dozen elements.
  const typed =
    aroundAxis(x.shape, axis).inner >= 16 &&
    ArrayBuffer.isView(xs) &&
    ArrayBuffer.isView(ys) &&
    Object.getPrototypeOf(xs) === Object.getPrototypeOf(ys);
  forEachRun(op, x, indices, axis, (dst, src, inner) => {
    if (typed) (ys as unknown as Float32Array).set((xs as unknown as Float32Array).subarray(src, src + inner), dst);
    else for (let i = 0; i < inner; i++) ys[dst + i] = xs[src + i]!;
  });
}
