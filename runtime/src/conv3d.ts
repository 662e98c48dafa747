// 3-D convolution composed from 2-D ones, for the importers (ONNX Conv over 5-D input, Relay nn.conv3d): one 2-D
// convolution per kernel depth tap, over the depth slices that tap reads.

import { add } from './generated/api/add.ts';
import { concatenate } from './generated/api/concatenate.ts';
import { reshape } from './generated/api/reshape.ts';
import { squeeze } from './generated/api/squeeze.ts';
import { take } from './generated/api/take.ts';
import { transpose } from './generated/api/transpose.ts';
import { tensor, zeros, type Tensor } from './tensor.ts';

/**
 * A 2-D convolution of x [N, C, H, W] by w [O, C / groups, KH, KW]: strides and dilations [h, w], pads [top, left,
 * bottom, right].
 */
export type Conv2dCall = (
  x: Tensor,
  w: Tensor,
  strides: readonly number[],
  dilations: readonly number[],
  pads: readonly number[],
  groups: number,
) => Tensor;

/**
 * x [N, C, D, H, W] convolved with w [O, C / groups, KD, KH, KW]: strides and dilations [d, h, w], pads [front, top,
 * left, back, bottom, right]. The input is zero-padded in depth; for each depth tap k the slices it reads fold into the
 * batch, `conv2d` runs over height and width, and the taps' results add up.
 */
export function conv3dByTaps(
  x: Tensor,
  w: Tensor,
  strides: readonly number[],
  dil: readonly number[],
  pads: readonly number[],
  groups: number,
  conv2d: Conv2dCall,
): Tensor {
  const [N, C, D, H, W] = x.shape as [number, number, number, number, number];
  const [O, kD] = [w.shape[0]!, w.shape[2]!];
  const [before, after] = [pads[0]!, pads[3]!];
  let xp = x;
  if (before || after)
    xp = concatenate(
      [
        ...(before ? [zeros([N, C, before, H, W], x.dtype)] : []),
        x,
        ...(after ? [zeros([N, C, after, H, W], x.dtype)] : []),
      ],
      2,
    );
  const depth = Math.floor((D + before + after - dil[0]! * (kD - 1) - 1) / strides[0]!) + 1;
  if (depth < 1) throw new Error(`the kernel's depth ${kD} does not fit the padded input's ${D + before + after}`);
  const index = (values: number[]) => tensor(values, { dtype: 'int32', shape: [values.length] });
  let y: Tensor | null = null;
  for (let k = 0; k < kD; k++) {
    const at = Array.from({ length: depth }, (_, d) => d * strides[0]! + k * dil[0]!);
    const slices = transpose(take(xp, index(at), 2), [0, 2, 1, 3, 4]);
    const tap = conv2d(
      reshape(slices, [N * depth, C, H, W]),
      squeeze(take(w, index([k]), 2), [2]),
      strides.slice(1),
      dil.slice(1),
      [pads[1]!, pads[2]!, pads[4]!, pads[5]!],
      groups,
    );
    y = y ? add(y, tap) : tap;
  }
  const [Ho, Wo] = [y!.shape[2]!, y!.shape[3]!];
  return transpose(reshape(y!, [N, depth, O, Ho, Wo]), [0, 2, 1, 3, 4]);
}
