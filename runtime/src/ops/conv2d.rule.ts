// Hand-written output rule of raf.op.conv2d (specs/nn/conv2d.yaml): NCHW with grouped channels.

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { Conv2dArgs } from '../generated/schema/conv2d.ts';
import { window2d } from './window.ts';

export function conv2dRule<T extends TensorType>(args: Conv2dArgs<T>): TensorType {
  const { x, w, groups } = args;
  const dtype = sameDtype('conv2d', { x, w });
  if (w.shape.length !== 4)
    throw new OpError('conv2d', `needs w of rank 4 [O, C / groups, KH, KW], got ${formatShape(w.shape)}`, 'w');
  const c = x.shape[1]!;
  const o = w.shape[0]!;
  if (c % groups !== 0 || o % groups !== 0 || w.shape[1]! * groups !== c) {
    throw new OpError(
      'conv2d',
      `x has ${c} channels, w ${formatShape(w.shape)} expects ${w.shape[1]! * groups} with groups = ${groups}`,
      'w',
    );
  }
  const g = window2d('conv2d', x.shape, w.shape.slice(2), args.stride, args.padding, args.dilation);
  return { shape: [x.shape[0]!, o, g.oh, g.ow], dtype };
}
