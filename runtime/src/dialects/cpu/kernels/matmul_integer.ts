// CPU kernel of raf.op.matmul_integer (specs/quant/matmul_integer.yaml): the exact product of the centred operands
// wrapped to int32: for 8-bit operands and a 2-D b on the wasm integer product (int8Matmul), else integerMatmul (the
// wasm float32 product in exact chunks).

import type { MatmulIntegerKernel } from '../../../generated/bridge/matmul_integer.ts';
import { int8Matmul, integerMatmul, toInt32 } from '../quant.ts';
import { allocOut } from '../support.ts';

export const matmulIntegerCpu: MatmulIntegerKernel = ({ a, b, a_zero_point, b_zero_point }, _attrs, out) => {
  const y = allocOut(out);
  if (int8Matmul('matmul_integer', a, b, a_zero_point, b_zero_point, y.dataSync() as Int32Array)) return y;
  const { sums } = integerMatmul('matmul_integer', a, b, a_zero_point, b_zero_point);
  toInt32(sums, y.dataSync() as Int32Array);
  return y;
};
