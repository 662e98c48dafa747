// Hand-written shape rule of raf.op.col2im (specs/tensor/col2im.yaml): [N, C · prod(block_shape), L] → [N, C, *image_shape],
// L being the number of block positions a convolution of block_shape would visit in the padded image.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { Col2imArgs } from '../generated/schema/col2im.ts';

/** The geometry of one col2im call: per spatial axis the dilation, begin pad, stride and block positions. */
export interface Col2imGeometry {
  readonly dilations: number[];
  readonly begins: number[];
  readonly strides: number[];
  readonly positions: number[];
}

export function col2imGeometry(
  imageShape: readonly number[],
  blockShape: readonly number[],
  dilations: readonly number[] | null,
  pads: readonly number[] | null,
  strides: readonly number[] | null,
): Col2imGeometry {
  const n = imageShape.length;
  const list = (v: readonly number[] | null, what: string, len: number, fill: number): number[] => {
    if (v === null) return new Array<number>(len).fill(fill);
    if (v.length !== len) throw new OpError('col2im', `has ${v.length} values, the ${n}-D image needs ${len}`, what);
    return [...v];
  };
  if (blockShape.length !== n)
    throw new OpError('col2im', `has ${blockShape.length} values, image_shape has ${n}`, 'block_shape');
  const dil = list(dilations, 'dilations', n, 1);
  const pad = list(pads, 'pads', 2 * n, 0);
  const str = list(strides, 'strides', n, 1);
  const positions = imageShape.map((d, i) => {
    const span = dil[i]! * (blockShape[i]! - 1) + 1;
    const p = Math.floor((d + pad[i]! + pad[i + n]! - span) / str[i]!) + 1;
    if (p < 1)
      throw new OpError('col2im', `a block spanning ${span} does not fit axis ${i} of the padded image`, 'block_shape');
    return p;
  });
  return { dilations: dil, begins: pad.slice(0, n), strides: str, positions };
}

export function col2imRule<T extends TensorType>(args: Col2imArgs<T>): TensorType {
  const { x, image_shape, block_shape, dilations, pads, strides } = args;
  if (x.shape.length !== 3)
    throw new OpError('col2im', `must be [N, C · prod(block_shape), L], got ${formatShape(x.shape)}`, 'x');
  const g = col2imGeometry(image_shape, block_shape, dilations, pads, strides);
  const block = block_shape.reduce((p, d) => p * d, 1);
  const [N, CB, L] = x.shape as [number, number, number];
  if (CB % block) throw new OpError('col2im', `has ${CB} rows, not a multiple of the block's ${block} elements`, 'x');
  const blocks = g.positions.reduce((p, d) => p * d, 1);
  if (L !== blocks)
    throw new OpError(
      'col2im',
      `has ${L} columns, but the image holds ${blocks} blocks (${g.positions.join(' × ')})`,
      'x',
    );
  return { shape: [N, CB / block, ...image_shape], dtype: x.dtype };
}
