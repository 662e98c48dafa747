// Wasm kernel of raf.op.concatenate (specs/tensor/concatenate.yaml): per outer index, each input's block along axis
// copied in turn, within wasm memory where the inputs are resident there.

import type { ConcatenateKernel } from '../../../generated/bridge/concatenate.ts';
import { sizeOf } from '../../../shape.ts';
import { callArena } from '../module.ts';
import { outBlock, residentView, WIDTH_ARRAY, widthOf } from '../support.ts';

export const concatenateWasm: ConcatenateKernel = ({ xs }, { axis }, out) => {
  const width = widthOf(out.dtype)!;
  const arena = callArena();
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  const ys = arena.view(WIDTH_ARRAY[width], y.ptr, sizeOf(out.shape));
  // Row-major: everything after axis is one contiguous run per outer index, for every input.
  const outer = sizeOf(out.shape.slice(0, axis));
  const inner = sizeOf(out.shape.slice(axis + 1));
  const rowOut = out.shape[axis]! * inner;
  let offset = 0;
  for (const x of xs) {
    const xv = residentView(arena, x) ?? (x.dataSync() as Float32Array | Float64Array);
    const row = x.shape[axis]! * inner;
    for (let o = 0; o < outer; o++) ys.set(xv.subarray(o * row, (o + 1) * row), o * rowOut + offset);
    offset += row;
  }
  return y.tensor();
};
