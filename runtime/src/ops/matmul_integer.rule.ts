// Hand-written output rule of raf.op.matmul_integer (specs/quant/matmul_integer.yaml): NumPy matmul's shape, int32.

import type { TensorType } from '../tensor.ts';
import type { MatmulIntegerArgs } from '../generated/schema/matmul_integer.ts';
import { checkInt8, checkZeroPoint, matmulGeometry, matmulParamShape } from './quant.ts';

const OP = 'matmul_integer';

export function matmulIntegerRule<T extends TensorType>(args: MatmulIntegerArgs<T>): TensorType {
  const { a, b, a_zero_point: za, b_zero_point: zb } = args;
  const g = matmulGeometry(OP, a.shape, b.shape);
  checkInt8(OP, 'a', a);
  checkInt8(OP, 'b', b);
  checkZeroPoint(OP, 'a_zero_point', za, 'a', a);
  checkZeroPoint(OP, 'b_zero_point', zb, 'b', b);
  if (za) matmulParamShape(OP, 'a_zero_point', za.shape, g, 'a');
  if (zb) matmulParamShape(OP, 'b_zero_point', zb.shape, g, 'b');
  return { shape: g.out, dtype: 'int32' };
}
