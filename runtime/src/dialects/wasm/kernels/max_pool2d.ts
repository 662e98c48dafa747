// Wasm kernel of raf.op.max_pool2d (specs/nn/max_pool2d.yaml): float32 runs as/pool's max_pool2d_f32; float64 the CPU
// kernel's loop over wasm memory.

import type { MaxPool2dKernel } from '../../../generated/bridge/max_pool2d.ts';
import { window2d } from '../../../ops/window.ts';
import { maxPoolLoop } from '../../cpu/kernels/max_pool2d.ts';
import { callArena, wasm } from '../module.ts';
import { inPtr, outBlock, overWasmMemory, widthOf } from '../support.ts';

type MaxPool = (x: number, y: number, ...dims: number[]) => void;

export const maxPool2dWasm: MaxPool2dKernel = ({ x }, { kernel, stride, padding }, out) => {
  const g = window2d('max_pool2d', x.shape, kernel, stride, padding);
  if (widthOf(out.dtype) !== 'f32') return overWasmMemory(x, out, (xs, ys) => maxPoolLoop(xs, ys, x.shape, g));
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const arena = callArena();
  const px = inPtr(arena, 'f32', x);
  const y = outBlock(arena, 'f32', out);
  (wasm().max_pool2d_f32 as MaxPool)(px, y.ptr, n * c, h, w, g.kh, g.kw, g.sh, g.sw, g.padTop, g.padLeft, g.oh, g.ow);
  return y.tensor();
};
