// Wasm kernel of raf.op.global_avg_pool2d (specs/nn/global_avg_pool2d.yaml): float32 runs as/pool's global_avg_f32;
// float64 the CPU kernel's loop over wasm memory.

import type { GlobalAvgPool2dKernel } from '../../../generated/bridge/global_avg_pool2d.ts';
import { sizeOf } from '../../../shape.ts';
import { globalAvgLoop } from '../../cpu/kernels/global_avg_pool2d.ts';
import { callArena, wasm } from '../module.ts';
import { inPtr, outBlock, overWasmMemory, widthOf } from '../support.ts';

type GlobalAvg = (x: number, y: number, planes: number, plane: number) => void;

export const globalAvgPool2dWasm: GlobalAvgPool2dKernel = ({ x }, _attrs, out) => {
  const plane = x.shape[2]! * x.shape[3]!;
  if (widthOf(out.dtype) !== 'f32') return overWasmMemory(x, out, (xs, ys) => globalAvgLoop(xs, ys, ys.length, plane));
  const arena = callArena();
  const px = inPtr(arena, 'f32', x);
  const y = outBlock(arena, 'f32', out);
  (wasm().global_avg_f32 as GlobalAvg)(px, y.ptr, sizeOf(out.shape), plane);
  return y.tensor();
};
