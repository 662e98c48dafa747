// Reductions for CPU kernels: fold every input element into its output slot, accumulating in float64.

import { sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { aroundAxis, allocOut, finish, reduceIndex } from './support.ts';

/** out[slot] = fold over the elements reduced into slot, starting from `init`; `done` maps the accumulator (and count) last. */
export function foldReduce(
  x: Tensor,
  axes: readonly number[] | null,
  out: TensorType,
  init: number,
  step: (acc: number, v: number) => number,
  done: (acc: number, count: number) => number = (acc) => acc,
): Tensor {
  const y = allocOut(out);
  const xs = x.dataSync();
  const acc = new Float64Array(y.size).fill(init);
  const to = reduceIndex(x.shape, axes);
  for (let i = 0; i < xs.length; i++) acc[to[i]!] = step(acc[to[i]!]!, xs[i]!);
  const count = y.size === 0 ? 0 : sizeOf(x.shape) / y.size;
  const ys = y.dataSync();
  for (let j = 0; j < ys.length; j++) ys[j] = done(acc[j]!, count);
  return finish(y);
}

/** Index of the first element that `better` prefers, along one axis (or over the flattened input when axis is null). */
export function argReduce(
  x: Tensor,
  axis: number | null,
  out: TensorType,
  better: (v: number, best: number) => boolean,
): Tensor {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const { outer, len, inner } = axis === null ? { outer: 1, len: xs.length, inner: 1 } : aroundAxis(x.shape, axis);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      let best = 0;
      for (let k = 1; k < len; k++) if (better(xs[base + k * inner]!, xs[base + best * inner]!)) best = k;
      ys[o * inner + i] = best;
    }
  }
  return y;
}
