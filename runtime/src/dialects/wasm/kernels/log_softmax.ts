// Wasm kernel of raf.op.log_softmax (specs/nn/log_softmax.yaml): SIMD rows with a vector exp when the axis is the last one.

import type { LogSoftmaxKernel } from '../../../generated/bridge/log_softmax.ts';
import { aroundAxis } from '../../cpu/support.ts';
import { callArena, wasm } from '../module.ts';
import { inPtr, outBlock, widthOf } from '../support.ts';

export const logSoftmaxWasm: LogSoftmaxKernel = ({ x }, { axis }, out) => {
  const width = widthOf(out.dtype)!;
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  const arena = callArena();
  const px = inPtr(arena, width, x);
  const y = outBlock(arena, width, out);
  wasm()[`softmax_${width}`](px, y.ptr, outer, len, inner, true);
  return y.tensor();
};
