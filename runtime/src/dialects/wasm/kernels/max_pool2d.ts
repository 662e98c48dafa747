// Wasm kernel of raf.op.max_pool2d (specs/nn/max_pool2d.yaml): the CPU kernel's loop over wasm memory.

import type { MaxPool2dKernel } from '../../../generated/bridge/max_pool2d.ts';
import { window2d } from '../../../ops/window.ts';
import { maxPoolLoop } from '../../cpu/kernels/max_pool2d.ts';
import { overWasmMemory } from '../support.ts';

export const maxPool2dWasm: MaxPool2dKernel = ({ x }, { kernel, stride, padding }, out) => {
  const g = window2d('max_pool2d', x.shape, kernel, stride, padding);
  return overWasmMemory(x, out, (xs, ys) => maxPoolLoop(xs, ys, x.shape, g));
};
