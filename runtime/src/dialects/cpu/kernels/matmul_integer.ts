// CPU kernel of raf.op.matmul_integer (specs/quant/matmul_integer.yaml): the exact product of the centred operands
// (integerMatmul, on the wasm float32 product in exact chunks), wrapped to int32.

import type { MatmulIntegerKernel } from '../../../generated/bridge/matmul_integer.ts';
import { integerMatmul, toInt32 } from '../quant.ts';
import { allocOut } from '../support.ts';

export const matmulIntegerCpu: MatmulIntegerKernel = ({ a, b, a_zero_point, b_zero_point }, _attrs, out) => {
  const { sums } = integerMatmul('matmul_integer', a, b, a_zero_point, b_zero_point);
  const y = allocOut(out);
  toInt32(sums, y.dataSync() as Int32Array);
  return y;
};
