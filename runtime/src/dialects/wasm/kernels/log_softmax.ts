// Wasm kernel of raf.op.log_softmax (specs/nn/log_softmax.yaml): SIMD rows with a vector exp when the axis is the last one.

import type { LogSoftmaxKernel } from '../../../generated/bridge/log_softmax.ts';
import { aroundAxis } from '../../cpu/support.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, readTensor, widthOf, writeTensor } from '../support.ts';

export const logSoftmaxWasm: LogSoftmaxKernel = ({ x }, { axis }, out) => {
  const width = widthOf(out.dtype)!;
  const { outer, len, inner } = aroundAxis(x.shape, axis);
  const arena = callArena();
  const px = allocFor(arena, width, x.size);
  const py = allocFor(arena, width, x.size);
  writeTensor(arena, width, px, x);
  wasm()[`softmax_${width}`](px, py, outer, len, inner, true);
  return readTensor(arena, width, py, out);
};
