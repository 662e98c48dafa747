// Wasm kernel of raf.op.resize (specs/nn/resize.yaml): the taps of resizePlan over wasm memory, so a resize between
// two wasm kernels copies nothing out. Nearest (every tap one source element of weight 1) is one gather through an
// index table built once per attrs and shape; linear and cubic run one pass per resized axis as the CPU kernel does,
// accumulating in float64.

import type { ResizeAttrs, ResizeKernel } from '../../../generated/bridge/resize.ts';
import { resizePlan, type ResizeAxis } from '../../../ops/resize.rule.ts';
import { sizeOf, type Shape } from '../../../shape.ts';
import { callArena } from '../module.ts';
import { outBlock, residentView, widthOf } from '../support.ts';

const ARRAY = { f32: Float32Array, f64: Float64Array } as const;

type Table = { readonly gather: Int32Array } | { readonly axes: readonly ResizeAxis[] };

/** Tables by attrs (a planned graph passes the same attrs object on every run), then by x's shape. */
const tables = new WeakMap<ResizeAttrs, Map<string, Table>>();

function tableFor(attrs: ResizeAttrs, shape: Shape): Table {
  let byShape = tables.get(attrs);
  if (!byShape) tables.set(attrs, (byShape = new Map()));
  const key = shape.join(',');
  let t = byShape.get(key);
  if (t) return t;
  const plan = resizePlan({ x: { shape, dtype: 'float32' }, ...attrs });
  t = plan.axes.every((a) => a.taps.every((taps) => taps.length === 1 && taps[0]![1] === 1))
    ? { gather: gatherIndex(shape, plan.shape, plan.axes) }
    : { axes: plan.axes };
  byShape.set(key, t);
  return t;
}

/** For each output element, the input element nearest resize copies. */
function gatherIndex(inShape: Shape, outShape: Shape, axes: readonly ResizeAxis[]): Int32Array {
  const rank = inShape.length;
  // Per axis, the source index of each output index (identity where the axis is not resized).
  const source = outShape.map((len, d) => {
    const a = axes.find((x) => x.axis === d);
    return Int32Array.from({ length: len }, (_, o) => (a ? a.taps[o]![0]![0] : o));
  });
  const inStrides = new Array<number>(rank).fill(1);
  for (let d = rank - 2; d >= 0; d--) inStrides[d] = inStrides[d + 1]! * inShape[d + 1]!;
  let index = Int32Array.of(0);
  for (let d = 0; d < rank; d++) {
    const len = outShape[d]!;
    const next = new Int32Array(index.length * len);
    for (let i = 0; i < index.length; i++)
      for (let o = 0; o < len; o++) next[i * len + o] = index[i]! + source[d]![o]! * inStrides[d]!;
    index = next;
  }
  return index;
}

export const resizeWasm: ResizeKernel = ({ x }, attrs, out) => {
  const width = widthOf(out.dtype)!;
  const table = tableFor(attrs, x.shape);
  const arena = callArena();
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const xs = residentView(arena, x) ?? x.dataSync();
  const ys = arena.view(ARRAY[width], y.ptr, sizeOf(out.shape));
  if ('gather' in table) {
    const idx = table.gather;
    for (let i = 0; i < idx.length; i++) ys[i] = xs[idx[i]!]!;
    return y.tensor();
  }
  let data: ArrayLike<number> = xs;
  const shape = [...x.shape];
  table.axes.forEach(({ axis, inLen, outLen, taps }, k) => {
    const outer = sizeOf(shape.slice(0, axis));
    const inner = sizeOf(shape.slice(axis + 1));
    const last = k === table.axes.length - 1;
    const next = last ? ys : new Float64Array(outer * outLen * inner);
    for (let a = 0; a < outer; a++)
      for (let o = 0; o < outLen; o++) {
        const row = (a * outLen + o) * inner;
        for (let q = 0; q < inner; q++) {
          let s = 0;
          for (const [i, w] of taps[o]!) s += w * data[(a * inLen + i) * inner + q]!;
          next[row + q] = s;
        }
      }
    data = next;
    shape[axis] = outLen;
  });
  return y.tensor();
};
