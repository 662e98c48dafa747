// CPU kernel of raf.op.dynamic_quantize_linear (specs/quant/dynamic_quantize_linear.yaml), in float32 step by step as
// ONNX's reference and onnxruntime compute it: the range [min(x, 0), max(x, 0)], scale = (max - min) / 255 (1 / 255 for
// an empty range), zero point = round_half_even(clamp(0 - min / scale, 0, 255)), y = clamp(round_half_even(x / scale)
// + zero point, 0, 255).
// An all-zero x takes the reference's scale 1 / 255 (onnxruntime's kernel gives 1 there; y and the zero point are 0
// either way, so the dequantized values agree).
// The range and the rounding of y run in the wasm module where it is loaded (as/int8.ts: the same float32 steps, the
// quotient rounded to float32, round half to even), else in the JavaScript loops below.

import type { DynamicQuantizeLinearKernel } from '../../../generated/bridge/dynamic_quantize_linear.ts';
import type { Tensor } from '../../../tensor.ts';
import { callArena, wasm, wasmUnavailable } from '../../wasm/module.ts';
import { inPtr } from '../../wasm/support.ts';
import { roundHalfEven } from '../quant.ts';
import { allocOut } from '../support.ts';

const f = Math.fround;

/** Tests pin the JavaScript loops with this. */
let forceLoop = false;
export function setDynamicQuantizeLoop(on: boolean): void {
  forceLoop = on;
}

type Range = (x: number, n: number, out: number) => void;
type Quantize = (x: number, n: number, scale: number, zero: number, y: number) => void;

/** scale and zero point of the range [min, max] (min <= 0 <= max), in float32 as ONNX computes them. */
function scaleAndZero(min: number, max: number): [number, number] {
  const scale = f(f(max === min ? 1 : max - min) / 255);
  const initial = f(0 - f(min / scale));
  return [scale, roundHalfEven(Math.max(0, Math.min(255, initial)))];
}

function wasmReady(x: Tensor): boolean {
  if (forceLoop || x.dtype !== 'float32' || x.size === 0) return false;
  try {
    return wasmUnavailable() === undefined;
  } catch {
    return false;
  }
}

export const dynamicQuantizeLinearCpu: DynamicQuantizeLinearKernel = ({ x }, _attrs, outs) => {
  const [y, yScale, yZero] = outs.map(allocOut) as [Tensor, Tensor, Tensor];
  const yv = y.dataSync();
  let scale: number;
  let zp: number;
  if (wasmReady(x)) {
    const arena = callArena();
    const n = x.size;
    const px = inPtr(arena, 'f32', x);
    const pr = arena.alloc(8);
    const py = arena.alloc(n);
    const w = wasm();
    (w['int8_range_f32' as keyof typeof w] as unknown as Range)(px, n, pr);
    const [min, max] = new Float32Array(w.memory.buffer, pr, 2);
    [scale, zp] = scaleAndZero(min!, max!);
    if (Number.isFinite(zp)) {
      (w['int8_quantize_u8_f32' as keyof typeof w] as unknown as Quantize)(px, n, scale, zp, py);
      yv.set(new Uint8Array(w.memory.buffer, py, n));
      yScale.dataSync()[0] = scale;
      yZero.dataSync()[0] = zp;
      return [y, yScale, yZero];
    }
  }
  const xv = x.dataSync();
  let min = 0;
  let max = 0;
  for (let i = 0; i < xv.length; i++) {
    const v = xv[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  [scale, zp] = scaleAndZero(min, max);
  for (let i = 0; i < xv.length; i++) {
    const q = roundHalfEven(f(xv[i]! / scale)) + zp;
    yv[i] = q < 0 ? 0 : q > 255 ? 255 : q;
  }
  yScale.dataSync()[0] = scale;
  yZero.dataSync()[0] = zp;
  return [y, yScale, yZero];
};
