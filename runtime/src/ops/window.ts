// Sliding-window geometry shared by the conv2d and pooling rules and their CPU kernels (NCHW).

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';

/** One spatial window sweep: output size, and per axis the stride, dilation and leading pad. */
export interface Window2d {
  readonly kh: number;
  readonly kw: number;
  readonly sh: number;
  readonly sw: number;
  readonly dh: number;
  readonly dw: number;
  readonly padTop: number;
  readonly padLeft: number;
  readonly oh: number;
  readonly ow: number;
}

/** Padding as [top, left, bottom, right]; [h, w] pads both sides alike, as RAF's conv2d accepts. */
export function padding4(op: string, padding: readonly number[]): [number, number, number, number] {
  if (padding.length === 2) return [padding[0]!, padding[1]!, padding[0]!, padding[1]!];
  if (padding.length === 4) return [padding[0]!, padding[1]!, padding[2]!, padding[3]!];
  throw new OpError(op, `needs 2 or 4 values, got ${formatShape(padding)}`, 'padding');
}

function pair(op: string, arg: string, v: readonly number[]): [number, number] {
  if (v.length !== 2) throw new OpError(op, `needs 2 values [h, w], got ${formatShape(v)}`, arg);
  return [v[0]!, v[1]!];
}

export function window2d(
  op: string,
  input: readonly number[],
  kernel: readonly number[],
  stride: readonly number[],
  padding: readonly number[],
  dilation: readonly number[] = [1, 1],
): Window2d {
  if (input.length !== 4) throw new OpError(op, `needs x of rank 4 (NCHW), got shape ${formatShape(input)}`, 'x');
  const [kh, kw] = pair(op, 'kernel', kernel);
  const [sh, sw] = pair(op, 'stride', stride);
  const [dh, dw] = pair(op, 'dilation', dilation);
  const [pt, pl, pb, pr] = padding4(op, padding);
  // A dilated kernel spans d * (k - 1) + 1 input positions.
  const oh = Math.floor((input[2]! + pt + pb - (dh * (kh - 1) + 1)) / sh) + 1;
  const ow = Math.floor((input[3]! + pl + pr - (dw * (kw - 1) + 1)) / sw) + 1;
  if (oh <= 0 || ow <= 0) {
    throw new OpError(op, `kernel ${formatShape(kernel)} does not fit the padded input ${formatShape(input.slice(2))}`);
  }
  return { kh, kw, sh, sw, dh, dw, padTop: pt, padLeft: pl, oh, ow };
}
