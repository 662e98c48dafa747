// Wasm kernel of raf.op.dense (specs/linalg/dense.yaml): x · wᵀ on the shared SIMD matrix product, then + b per unit:
// float32 in place by the epilogue's bias_act_cols_f32 (one call, no second output), else by the wasm add's broadcast
// rows; the result stays in wasm memory.

import type { DenseKernel } from '../../../generated/bridge/dense.ts';
import type { DType } from '../../../dtype.ts';
import { sizeOf } from '../../../shape.ts';
import type { Tensor } from '../../../tensor.ts';
import { elementwise } from '../elementwise.ts';
import { wasmMatrixProduct } from '../matmul.ts';
import { callArena, wasm } from '../module.ts';
import { WasmStorage } from '../storage.ts';
import { inPtr } from '../support.ts';

type BiasCols = (y: number, bias: number, rows: number, inner: number, ...act: number[]) => void;
type Add = NonNullable<ReturnType<typeof elementwise<{ a: Tensor; b: Tensor }, object>>>;

/** The wasm add per dtype, built once per module instance (its broadcast walk is then kept between calls). */
let adds = new Map<DType, Add>();
let addsOf: object | undefined;

export const denseWasm: DenseKernel = ({ x, w, b }, _attrs, out) => {
  const y = wasmMatrixProduct(x, w, out, false, true);
  const units = out.shape[out.shape.length - 1]!;
  if (out.dtype === 'float32' && b.dtype === 'float32' && b.size === units && y.storage instanceof WasmStorage) {
    const arena = callArena();
    // After callArena: a heap restart there may have moved y out of wasm memory.
    const py = y.storage.ptr;
    if (py !== undefined) {
      const pb = inPtr(arena, 'f32', b);
      (wasm()['bias_act_cols_f32'] as BiasCols)(py, pb, sizeOf(out.shape) / units, units, 0, 0, 0, 0, 0, 1, 0);
      return y;
    }
  }
  // setWasmThreads swaps the instance, whose exports a built kernel holds.
  if (addsOf !== wasm()) [adds, addsOf] = [new Map(), wasm()];
  let add = adds.get(out.dtype) ?? null;
  if (!add) {
    add = elementwise<{ a: Tensor; b: Tensor }, object>('add', out.dtype, { a: y, b }, ['a', 'b'], []);
    if (add) adds.set(out.dtype, add);
  }
  if (!add) throw new Error(`dense: no wasm add for ${out.dtype}`);
  const r = add({ a: y, b }, {}, out) as Tensor;
  y.dispose();
  return r;
};
