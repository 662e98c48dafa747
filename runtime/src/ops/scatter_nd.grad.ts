// Hand-written gradient of raf.op.scatter_nd (specs/tensor/scatter_nd.yaml). The index tuples are read on the host (CPU
// tensors, or small ones uploaded to WebGPU; see argValues) to find, per update row, the flat slot it writes:
//   none: x's gradient is dy with the written slots zeroed; an update's is dy at its slot, for the row that wrote it
//         last (a repeated index keeps the last update, so earlier rows get zero);
//   add:  x's gradient is dy; an update's is dy at its slot;
//   mul:  y = x · Π updates at the slot, so x's gradient is dy times that product (scatter_nd of dy by mul), and an
//         update's is dy · x at its slot times the product of the other rows that hit the same slot (computed from the
//         rows themselves, no division, so zeros are fine);
//   max, min: the gradient goes to whichever of x and the updates at a slot equals the result there (each of them on
//         a tie, as torch.scatter_reduce's amax does with include_self).

import type { ScatterNdGradContext, ScatterNdGradResult } from '../generated/grad/scatter_nd.ts';
import { argValues } from '../checks.ts';
import { concatenate } from '../generated/api/concatenate.ts';
import { equal } from '../generated/api/equal.ts';
import { multiply } from '../generated/api/multiply.ts';
import { prod } from '../generated/api/prod.ts';
import { reshape } from '../generated/api/reshape.ts';
import { scatterNd } from '../generated/api/scatter_nd.ts';
import { take } from '../generated/api/take.ts';
import { where } from '../generated/api/where.ts';
import { sizeOf } from '../shape.ts';
import { ones, placeOn, tensor, zeros, type Tensor } from '../tensor.ts';

/** For each update row, the flat slot of x's leading k axes it writes (negative indices count from the end). */
function slotsOf(x: Tensor, indices: Tensor): number[] {
  const k = indices.shape[indices.shape.length - 1]!;
  const idx = argValues('scatter_nd', 'indices', indices);
  const rows = k ? idx.length / k : 0;
  return Array.from({ length: rows }, (_, r) => {
    let slot = 0;
    for (let j = 0; j < k; j++) {
      const len = x.shape[j]!;
      const v = idx[r * k + j]!;
      slot = slot * len + (v < 0 ? v + len : v);
    }
    return slot;
  });
}

export function scatterNdGradImpl({ x, indices, updates, dy, reduction }: ScatterNdGradContext): ScatterNdGradResult {
  const k = indices.shape[indices.shape.length - 1]!;
  const slots = slotsOf(x, indices);
  const rows = slots.length;
  const rest = x.shape.slice(k);
  // Index lists and masks computed here move to dy's device (ops never move data implicitly).
  const ints = (v: number[]) => placeOn(tensor(v, { dtype: 'int32', shape: [v.length] }), dy.device);
  const flat = (t: Tensor) => reshape(t, [sizeOf(x.shape.slice(0, k)), ...rest]);
  const at = (t: Tensor) => reshape(take(flat(t), ints(slots), 0), updates.shape);
  if (reduction === 'add') return { x: dy, indices: null, updates: at(dy) };
  if (reduction === 'max' || reduction === 'min') {
    const y = scatterNd(x, indices, updates, reduction);
    const none = (like: Tensor) => placeOn(zeros(like.shape, like.dtype), dy.device);
    return {
      x: where(equal(x, y), dy, none(dy)),
      indices: null,
      updates: where(equal(updates, at(y)), at(dy), none(updates)),
    };
  }
  if (reduction === 'none') {
    const last = new Map<number, number>();
    slots.forEach((s, r) => last.set(s, r));
    const mask = placeOn(
      tensor(
        slots.map((s, r) => Number(last.get(s) === r)),
        { dtype: 'bool', shape: [...indices.shape.slice(0, -1), ...rest.map(() => 1)] },
      ),
      dy.device,
    );
    return {
      x: scatterNd(dy, indices, placeOn(zeros(updates.shape, updates.dtype), dy.device), 'none'),
      indices: null,
      updates: where(mask, at(dy), placeOn(zeros(updates.shape, updates.dtype), dy.device)),
    };
  }
  // mul: per row, the product of the other rows that hit its slot (ones where none does).
  const byRow = reshape(updates, [rows, ...rest]);
  const others = slots.map((s, r) => {
    const same = slots.flatMap((t, q) => (t === s && q !== r ? [q] : []));
    const one = take(byRow, ints([r]), 0);
    if (!same.length) return placeOn(ones(one.shape, one.dtype), dy.device);
    return reshape(prod(take(byRow, ints(same), 0), [0], true), one.shape);
  });
  const otherProducts = reshape(rows ? concatenate(others, 0) : byRow, updates.shape);
  return {
    x: scatterNd(dy, indices, updates, 'mul'),
    indices: null,
    updates: multiply(at(multiply(dy, x)), otherProducts),
  };
}
