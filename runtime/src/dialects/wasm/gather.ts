// Layout ops of the wasm dialect (transpose, strided_slice): the output is x's elements picked through an index table,
// built once per attrs and input shape, and copied within wasm memory, so a layout op between two wasm kernels moves
// nothing out to JavaScript memory.

import { sizeOf, type Shape } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { callArena } from './module.ts';
import { outBlock, residentView, WIDTH_ARRAY, widthOf } from './support.ts';

/** Tables by attrs (a planned graph passes the same attrs object on every run), then by x's shape. */
const tables = new WeakMap<object, Map<string, unknown>>();

/** The table (an index table, a resize plan) for these attrs and x's shape, built by `build` on first use. */
export function tableFor<T>(attrs: object, shape: Shape, build: () => T): T {
  let byShape = tables.get(attrs);
  if (!byShape) tables.set(attrs, (byShape = new Map()));
  const key = shape.join(',');
  if (!byShape.has(key)) byShape.set(key, build());
  return byShape.get(key) as T;
}

/** out[i] = x[index[i]], the output a resident block. */
export function gatherOverWasm(x: Tensor, out: TensorType, index: Int32Array): Tensor {
  const width = widthOf(out.dtype)!;
  const arena = callArena();
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const xs = residentView(arena, x) ?? x.dataSync();
  const ys = arena.view(WIDTH_ARRAY[width], y.ptr, sizeOf(out.shape));
  for (let i = 0; i < index.length; i++) ys[i] = xs[index[i]!]!;
  return y.tensor();
}
