// Hand-written output rule of raf.op.qlinear_conv (specs/quant/qlinear_conv.yaml): [N, M, output spatial...], in
// y_zero_point's dtype.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { QlinearConvArgs } from '../generated/schema/qlinear_conv.ts';
import {
  checkFloat,
  checkInt8,
  checkPerChannel,
  checkPerTensor,
  checkZeroPoint,
  convGeometry,
  quantRange,
} from './quant.ts';

const OP = 'qlinear_conv';

export function qlinearConvRule<T extends TensorType>(args: QlinearConvArgs<T>): TensorType {
  const { x, w, bias } = args;
  checkInt8(OP, 'x', x);
  checkInt8(OP, 'w', w);
  checkZeroPoint(OP, 'x_zero_point', args.x_zero_point, 'x', x);
  checkZeroPoint(OP, 'w_zero_point', args.w_zero_point, 'w', w);
  quantRange(OP, 'y_zero_point', args.y_zero_point.dtype);
  for (const s of ['x_scale', 'w_scale', 'y_scale'] as const) checkFloat(OP, s, args[s]);
  const g = convGeometry(OP, args);
  for (const p of ['x_scale', 'x_zero_point', 'y_scale', 'y_zero_point'] as const) checkPerTensor(OP, p, args[p]);
  checkPerChannel(OP, 'w_scale', args.w_scale, g.m);
  checkPerChannel(OP, 'w_zero_point', args.w_zero_point, g.m);
  if (bias) {
    if (bias.dtype !== 'int32') throw new OpError(OP, `dtype ${bias.dtype} is not supported; expected int32`, 'bias');
    if (bias.shape.length !== 1 || bias.shape[0] !== g.m)
      throw new OpError(OP, `has shape ${formatShape(bias.shape)}, expected [${g.m}] (one per output channel)`, 'bias');
  }
  return { shape: [g.n, g.m, ...g.output], dtype: args.y_zero_point.dtype };
}
