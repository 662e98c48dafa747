// Wasm kernel of raf.op.global_avg_pool2d (specs/nn/global_avg_pool2d.yaml): the CPU kernel's loop over wasm memory.

import type { GlobalAvgPool2dKernel } from '../../../generated/bridge/global_avg_pool2d.ts';
import { globalAvgLoop } from '../../cpu/kernels/global_avg_pool2d.ts';
import { overWasmMemory } from '../support.ts';

export const globalAvgPool2dWasm: GlobalAvgPool2dKernel = ({ x }, _attrs, out) =>
  overWasmMemory(x, out, (xs, ys) => globalAvgLoop(xs, ys, ys.length, x.shape[2]! * x.shape[3]!));
