// Hand-written output rule of raf.op.conv_integer (specs/quant/conv_integer.yaml): [N, M, output spatial...], int32.

import type { TensorType } from '../tensor.ts';
import type { ConvIntegerArgs } from '../generated/schema/conv_integer.ts';
import { checkInt8, checkPerChannel, checkPerTensor, checkZeroPoint, convGeometry } from './quant.ts';

const OP = 'conv_integer';

export function convIntegerRule<T extends TensorType>(args: ConvIntegerArgs<T>): TensorType {
  const { x, w, x_zero_point: zx, w_zero_point: zw } = args;
  const g = convGeometry(OP, args);
  checkInt8(OP, 'x', x);
  checkInt8(OP, 'w', w);
  checkZeroPoint(OP, 'x_zero_point', zx, 'x', x);
  checkZeroPoint(OP, 'w_zero_point', zw, 'w', w);
  if (zx) checkPerTensor(OP, 'x_zero_point', zx);
  if (zw) checkPerChannel(OP, 'w_zero_point', zw, g.m);
  return { shape: [g.n, g.m, ...g.output], dtype: 'int32' };
}
