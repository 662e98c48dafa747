// Wasm kernel of raf.op.dense (specs/linalg/dense.yaml): x · wᵀ on the shared SIMD matrix product, then + b per unit by
// the wasm add's broadcast rows; both results stay in wasm memory.

import type { DenseKernel } from '../../../generated/bridge/dense.ts';
import type { Tensor } from '../../../tensor.ts';
import { elementwise } from '../elementwise.ts';
import { wasmMatrixProduct } from '../matmul.ts';

export const denseWasm: DenseKernel = ({ x, w, b }, _attrs, out) => {
  const y = wasmMatrixProduct(x, w, out, false, true);
  const add = elementwise<{ a: Tensor; b: Tensor }, object>('add', out.dtype, { a: y, b }, ['a', 'b'], []);
  if (!add) throw new Error(`dense: no wasm add for ${out.dtype}`);
  const r = add({ a: y, b }, {}, out) as Tensor;
  y.dispose();
  return r;
};
