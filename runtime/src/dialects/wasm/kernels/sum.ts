// Wasm kernel of raf.op.sum (specs/reduce/sum.yaml), and the reduction passes it shares with mean, max and min: runs
// of adjacent reduced axes become one (outer, len, inner) pass each.
// raf-op-ignores: keepdims (the output type already has the kept size-1 axes; the flat layout is the same)

import type { SumKernel } from '../../../generated/bridge/sum.ts';
import { sizeOf } from '../../../shape.ts';
import type { Tensor, TensorType } from '../../../tensor.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, inPtr, outBlock, widthOf } from '../support.ts';

/** The folds of as/reduce.ts. */
export const enum Fold {
  Sum = 0,
  Max = 1,
  Min = 2,
}

/**
 * x reduced over `axis` (null or empty: all) with `fold`; `mean` divides the sum by the count of reduced elements,
 * once, in the last pass.
 */
export function reduceWasm(
  x: Tensor,
  axis: readonly number[] | null,
  out: TensorType,
  fold: Fold,
  mean = false,
): Tensor {
  const width = widthOf(out.dtype)!;
  const shape = [...x.shape];
  const all = axis === null || axis.length === 0;
  const reduced = shape.map((_, d) => all || axis.includes(d));
  const count = reduced.reduce((n, r, d) => (r ? n * shape[d]! : n), 1);
  const arena = callArena();
  let p = inPtr(arena, width, x);
  const y = outBlock(arena, width, out);
  const kernel = wasm()[`reduce_${width}`];
  // Innermost run first, so the offsets of the runs before it stay valid.
  for (let end = shape.length; end > 0;) {
    if (!reduced[end - 1]) {
      end--;
      continue;
    }
    let start = end - 1;
    while (start > 0 && reduced[start - 1]) start--;
    const outer = sizeOf(shape.slice(0, start));
    const len = sizeOf(shape.slice(start, end));
    const inner = sizeOf(shape.slice(end));
    // The last run reduced writes the output itself.
    let last = start;
    while (last > 0 && !reduced[last - 1]) last--;
    const q = last === 0 ? y.ptr : allocFor(arena, width, outer * inner);
    kernel(p, q, outer, len, inner, fold, mean && last === 0 ? count : 1);
    for (let d = start; d < end; d++) shape[d] = 1;
    p = q;
    end = start;
  }
  // Nothing reduced (an empty axis list over no axes): the output is the input.
  if (p !== y.ptr) arena.heap.copy(y.ptr, p, sizeOf(out.shape) * (width === 'f32' ? 4 : 8));
  return y.tensor();
}

export const sumWasm: SumKernel = ({ x }, { axis }, out) => reduceWasm(x, axis, out, Fold.Sum);
