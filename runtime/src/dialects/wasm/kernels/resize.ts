// Wasm kernel of raf.op.resize (specs/nn/resize.yaml): the taps of resizePlan over wasm memory, so a resize between
// two wasm kernels copies nothing out. Nearest (every tap one source element of weight 1) is one gather through an
// index table built once per attrs and shape; linear and cubic run one pass per resized axis as the CPU kernel does,
// accumulating in float64.

import type { ResizeAttrs, ResizeKernel } from '../../../generated/bridge/resize.ts';
import { resizePlan, type ResizeAxis } from '../../../ops/resize.rule.ts';
import { sizeOf, stridesOf, type Shape } from '../../../shape.ts';
import { gatherOverWasm, tableFor } from '../gather.ts';
import { callArena } from '../module.ts';
import { outBlock, residentView, WIDTH_ARRAY, widthOf } from '../support.ts';

type Table = { readonly gather: Int32Array } | { readonly axes: readonly ResizeAxis[] };

function buildTable(attrs: ResizeAttrs, shape: Shape): Table {
  const plan = resizePlan({ x: { shape, dtype: 'float32' }, ...attrs });
  return plan.axes.every((a) => a.taps.every((taps) => taps.length === 1 && taps[0]![1] === 1))
    ? { gather: gatherIndex(shape, plan.shape, plan.axes) }
    : { axes: plan.axes };
}

/** For each output element, the input element nearest resize copies. */
function gatherIndex(inShape: Shape, outShape: Shape, axes: readonly ResizeAxis[]): Int32Array {
  const rank = inShape.length;
  // Per axis, the source index of each output index (identity where the axis is not resized).
  const source = outShape.map((len, d) => {
    const a = axes.find((x) => x.axis === d);
    return Int32Array.from({ length: len }, (_, o) => (a ? a.taps[o]![0]![0] : o));
  });
  const inStrides = stridesOf(inShape);
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
  const table = tableFor('resize', attrs, x.shape, () => buildTable(attrs, x.shape));
  if ('gather' in table) return gatherOverWasm(x, out, table.gather);
  const width = widthOf(out.dtype)!;
  const arena = callArena();
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const xs = residentView(arena, x) ?? x.dataSync();
  const ys = arena.view(WIDTH_ARRAY[width], y.ptr, sizeOf(out.shape));
  let data: ArrayLike<number> = xs;
  const shape = [...x.shape];
  table.axes.forEach(({ axis, inLen, outLen, taps, outside }, k) => {
    const outer = sizeOf(shape.slice(0, axis));
    const inner = sizeOf(shape.slice(axis + 1));
    const last = k === table.axes.length - 1;
    const next = last ? ys : new Float64Array(outer * outLen * inner);
    for (let a = 0; a < outer; a++)
      for (let o = 0; o < outLen; o++) {
        const row = (a * outLen + o) * inner;
        if (outside?.[o]) {
          // tf_crop_and_resize: a source outside x.
          next.fill(attrs.extrapolation_value, row, row + inner);
          continue;
        }
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
