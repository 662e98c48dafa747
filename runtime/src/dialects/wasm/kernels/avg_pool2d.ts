// Wasm kernel of raf.op.avg_pool2d (specs/nn/avg_pool2d.yaml): float32 runs as/pool's avg_pool2d_f32; float64 the CPU
// kernel's loop over wasm memory.

import type { AvgPool2dKernel } from '../../../generated/bridge/avg_pool2d.ts';
import { padding4, window2d } from '../../../ops/window.ts';
import { avgPoolLoop } from '../../cpu/kernels/avg_pool2d.ts';
import { callArena, wasm } from '../module.ts';
import { inPtr, outBlock, overWasmMemory, widthOf } from '../support.ts';

type AvgPool = (x: number, y: number, ...dims: number[]) => void;

export const avgPool2dWasm: AvgPool2dKernel = ({ x }, { kernel, stride, padding, count_include_pad }, out) => {
  const g = window2d('avg_pool2d', x.shape, kernel, stride, padding);
  const [, , pb, pr] = padding4('avg_pool2d', padding);
  const padEnd = count_include_pad ? ([pb, pr] as const) : null;
  if (widthOf(out.dtype) !== 'f32') return overWasmMemory(x, out, (xs, ys) => avgPoolLoop(xs, ys, x.shape, g, padEnd));
  const [n, c, h, w] = x.shape as [number, number, number, number];
  const arena = callArena();
  const px = inPtr(arena, 'f32', x);
  const y = outBlock(arena, 'f32', out);
  // With count_include_pad the divisor counts cells up to the padded image's bottom and right edges; else -1.
  const [hEnd, wEnd] = padEnd ? [h + pb, w + pr] : [-1, -1];
  (wasm().avg_pool2d_f32 as AvgPool)(
    px,
    y.ptr,
    n * c,
    h,
    w,
    g.kh,
    g.kw,
    g.sh,
    g.sw,
    g.padTop,
    g.padLeft,
    g.oh,
    g.ow,
    hEnd,
    wEnd,
  );
  return y.tensor();
};
