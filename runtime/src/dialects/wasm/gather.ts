// Layout ops of the wasm dialect (transpose, strided_slice, nearest resize): the output is x's elements picked through
// an index table, built once per attrs and input shape and kept in wasm memory, and gathered there by as/gather.ts, so
// a layout op between two wasm kernels moves nothing out to JavaScript memory.

import { sizeOf, type Shape } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { allocKeptBlock, callArena, freeKeptBlock, HEAP_LIMIT, wasm, wasmHeap, type KeptBlock } from './module.ts';
import { inPtr, outBlock, residentView, WIDTH_ARRAY, widthOf } from './support.ts';

/** Tables by attrs object (a planned graph passes the same one on every run), then by x's shape. */
const byAttrs = new WeakMap<object, Map<string, unknown>>();
/** The most recent tables by op, attrs' values and shape: eager calls make new attrs objects every time. */
const recent = new Map<string, unknown>();
const RECENT_TABLES = 64;
/** Index entries the recent tables may hold together (64 MiB of int32); the oldest go first. */
const RECENT_ENTRIES = 16 << 20;
let recentEntries = 0;
const entriesOf = (t: unknown) => (t instanceof Int32Array ? t.length : 0);

/**
 * The table (an index table, a resize plan) of op `kind` for these attrs and x's shape, built by `build` on first use
 * and kept while the attrs object lives, or while it is among the 64 most recent.
 */
export function tableFor<T>(kind: string, attrs: object, shape: Shape, build: () => T): T {
  const key = shape.join(',');
  let byShape = byAttrs.get(attrs);
  if (byShape?.has(key)) return byShape.get(key) as T;
  const full = `${kind}${JSON.stringify(attrs)}:${key}`;
  let table = recent.get(full) as T | undefined;
  if (table === undefined) {
    table = build();
    recentEntries += entriesOf(table);
  } else recent.delete(full);
  recent.set(full, table);
  while (recent.size > RECENT_TABLES || (recentEntries > RECENT_ENTRIES && recent.size > 1)) {
    const [oldest, t] = recent.entries().next().value!;
    recent.delete(oldest);
    recentEntries -= entriesOf(t);
  }
  if (!byShape) byAttrs.set(attrs, (byShape = new Map()));
  byShape.set(key, table);
  return table;
}

/** Each index table's copy in wasm memory; given back when the table is collected. */
const copies = new WeakMap<Int32Array, KeptBlock>();
const unused = new FinalizationRegistry<KeptBlock>((block) => freeKeptBlock(block));

/** Where `index` is in wasm memory: copied there on first use, and again after the heap started over. */
function indexPtr(index: Int32Array): number {
  let block = copies.get(index);
  if (!block) {
    block = { base: -1, bytes: Math.max(index.length, 1) * 4 };
    copies.set(index, block);
    unused.register(index, block);
  }
  if (block.base < 0) {
    allocKeptBlock(block);
    wasmHeap().writeI32(block.base, index);
  }
  return block.base;
}

type Gather = (x: number, y: number, index: number, n: number) => void;

/** Tables above this many entries (16 MiB) are not copied into wasm memory: they gather in JavaScript. */
const KEPT_ENTRIES = HEAP_LIMIT / 32;

/** out[i] = x[index[i]], the output a resident block. */
export function gatherOverWasm(x: Tensor, out: TensorType, index: Int32Array): Tensor {
  const width = widthOf(out.dtype)!;
  const arena = callArena();
  if (index.length > KEPT_ENTRIES) {
    const y = outBlock(arena, width, out);
    // Views only after the last allocation: growing memory detaches them.
    const xs = residentView(arena, x) ?? x.dataSync();
    const ys = arena.view(WIDTH_ARRAY[width], y.ptr, index.length);
    for (let i = 0; i < index.length; i++) ys[i] = xs[index[i]!]!;
    return y.tensor();
  }
  // After callArena: a heap restart there drops the tables' copies.
  const pi = indexPtr(index);
  const px = inPtr(arena, width, x);
  const y = outBlock(arena, width, out);
  (wasm()[`gather_${width}`] as Gather)(px, y.ptr, pi, sizeOf(out.shape));
  return y.tensor();
}
