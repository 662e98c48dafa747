// Hand-written output rule of raf.op.qlinear_matmul (specs/quant/qlinear_matmul.yaml): NumPy matmul's shape, in
// y_zero_point's dtype.

import type { TensorType } from '../tensor.ts';
import type { QlinearMatmulArgs } from '../generated/schema/qlinear_matmul.ts';
import { checkFloat, checkInt8, checkZeroPoint, matmulGeometry, matmulParamShape, quantRange } from './quant.ts';

const OP = 'qlinear_matmul';

export function qlinearMatmulRule<T extends TensorType>(args: QlinearMatmulArgs<T>): TensorType {
  const { a, b } = args;
  checkInt8(OP, 'a', a);
  checkInt8(OP, 'b', b);
  checkZeroPoint(OP, 'a_zero_point', args.a_zero_point, 'a', a);
  checkZeroPoint(OP, 'b_zero_point', args.b_zero_point, 'b', b);
  quantRange(OP, 'y_zero_point', args.y_zero_point.dtype);
  for (const s of ['a_scale', 'b_scale', 'y_scale'] as const) checkFloat(OP, s, args[s]);
  const g = matmulGeometry(OP, a.shape, b.shape);
  for (const p of ['a_scale', 'a_zero_point', 'y_scale', 'y_zero_point'] as const)
    matmulParamShape(OP, p, args[p].shape, g, 'a');
  for (const p of ['b_scale', 'b_zero_point'] as const) matmulParamShape(OP, p, args[p].shape, g, 'b');
  return { shape: g.out, dtype: args.y_zero_point.dtype };
}
