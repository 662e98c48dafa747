// Wasm kernel of raf.op.softmax (specs/nn/softmax.yaml): SIMD rows with a vector exp when the axis is the last one.

import type { SoftmaxKernel } from '../../../generated/bridge/softmax.ts';
import { aroundAxis } from '../../cpu/support.ts';
import { callArena, wasm } from '../module.ts';
import { inPtr, outBlock, widthOf } from '../support.ts';

export const softmaxWasm: SoftmaxKernel = ({ x }, { axis }, out) => {
  const width = widthOf(out.dtype)!;
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  const arena = callArena();
  const px = inPtr(arena, width, x);
  const y = outBlock(arena, width, out);
  wasm()[`softmax_${width}`](px, y.ptr, outer, len, inner, false);
  return y.tensor();
};
