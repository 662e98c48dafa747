// Hand-written shape rule of raf.op.conv_transpose (specs/nn/conv_transpose.yaml) and the geometry its kernels and
// gradient share: the 1-D or 2-D transposed convolution resolved (auto_pad, output_shape, output_padding) to the 2-D
// conv2d whose backward for x it is, with a unit height for 1-D.

import { sameDtype } from '../checks.ts';
import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { ConvTransposeArgs } from '../generated/schema/conv_transpose.ts';
import { window2d } from './window.ts';

const OP = 'conv_transpose';

/** What the kernels and the gradient need, always 2-D (a 1-D op has height 1 everywhere). */
export interface ConvTransposeGeometry {
  /** 1 or 2 spatial axes. */
  readonly rank: number;
  /** x, w and the output as 4-D shapes. */
  readonly x4: readonly number[];
  readonly w4: readonly number[];
  readonly out4: readonly number[];
  readonly stride: readonly number[];
  /** [top, left, bottom, right], as conv2d's padding; the end pads are negative where output_shape adds zeros. */
  readonly padding: readonly number[];
  readonly dilation: readonly number[];
  /** The output's shape as the op returns it (rank 3 or 4). */
  readonly out: readonly number[];
}

type GeometryArgs = Pick<
  ConvTransposeArgs<TensorType>,
  'x' | 'w' | 'stride' | 'padding' | 'output_padding' | 'dilation' | 'groups' | 'auto_pad' | 'output_shape'
>;

function perAxis(arg: string, v: readonly number[] | null, rank: number, fill: number): number[] {
  if (v === null) return new Array<number>(rank).fill(fill);
  if (v.length !== rank)
    throw new OpError(OP, `needs ${rank} values (one per spatial axis), got ${formatShape(v)}`, arg);
  return [...v];
}

/** Resolves the args to a 2-D transposed convolution; throws an OpError naming the arg that does not fit. */
export function convTransposeGeometry(args: GeometryArgs): ConvTransposeGeometry {
  const { x, w, groups } = args;
  const rank = x.shape.length - 2;
  if (rank !== 1 && rank !== 2)
    throw new OpError(OP, `needs x of rank 3 [N, C, W] or 4 [N, C, H, W], got ${formatShape(x.shape)}`, 'x');
  if (w.shape.length !== rank + 2)
    throw new OpError(OP, `needs w of rank ${rank + 2} [C, O / groups, kernel...], got ${formatShape(w.shape)}`, 'w');
  const c = x.shape[1]!;
  if (w.shape[0] !== c || c % groups !== 0)
    throw new OpError(
      OP,
      `x has ${c} channels, w ${formatShape(w.shape)} needs ${w.shape[0]} (a multiple of groups = ${groups})`,
      'w',
    );
  const kernel = w.shape.slice(2);
  const inSize = x.shape.slice(2);
  const stride = perAxis('stride', args.stride, rank, 1);
  const dilation = perAxis('dilation', args.dilation, rank, 1);
  const extra = perAxis('output_padding', args.output_padding, rank, 0);
  const span = kernel.map((k, i) => (k - 1) * dilation[i]! + 1);
  // The output with no padding at all; pads crop it.
  const full = inSize.map((n, i) => (n - 1) * stride[i]! + extra[i]! + span[i]!);
  let begin: number[];
  let outSize: number[] | undefined;
  let end: number[];
  const wanted =
    args.output_shape !== null
      ? perAxis('output_shape', args.output_shape.slice(-rank), rank, 0)
      : args.auto_pad === 'SAME_UPPER' || args.auto_pad === 'SAME_LOWER'
        ? inSize.map((n, i) => n * stride[i]!)
        : null;
  if (wanted) {
    // As onnxruntime: the padding that crops the full output to the wanted size, the odd cell at the end for
    // SAME_UPPER and at the start otherwise; auto_pad never grows the output, output_shape does (with zeros at the
    // end, a negative end pad).
    const total = full.map((f, i) => Math.max(0, f - wanted[i]!));
    const upper = args.auto_pad === 'SAME_UPPER';
    begin = total.map((t) => (upper ? Math.floor(t / 2) : t - Math.floor(t / 2)));
    const size = args.output_shape !== null ? wanted : full.map((f, i) => f - total[i]!);
    end = full.map((f, i) => f - begin[i]! - size[i]!);
    outSize = size;
  } else if (args.auto_pad === 'VALID' || args.padding === null) {
    begin = new Array<number>(rank).fill(0);
    end = new Array<number>(rank).fill(0);
  } else {
    const p = args.padding;
    if (p.length !== 2 * rank)
      throw new OpError(OP, `needs ${2 * rank} values [begin..., end...], got ${formatShape(p)}`, 'padding');
    begin = p.slice(0, rank);
    end = p.slice(rank);
  }
  outSize ??= full.map((f, i) => f - begin[i]! - end[i]!);
  if (outSize.some((s) => s < 1))
    throw new OpError(OP, `pads ${formatShape([...begin, ...end])} leave no output of ${formatShape(full)}`, 'padding');
  const two = (v: readonly number[], fill: number) => (rank === 1 ? [fill, v[0]!] : [...v]);
  const o = w.shape[1]! * groups;
  const geo: ConvTransposeGeometry = {
    rank,
    x4: [x.shape[0]!, c, ...two(inSize, 1)],
    w4: [c, w.shape[1]!, ...two(kernel, 1)],
    out4: [x.shape[0]!, o, ...two(outSize, 1)],
    stride: two(stride, 1),
    padding: rank === 1 ? [0, begin[0]!, 0, end[0]!] : [begin[0]!, begin[1]!, end[0]!, end[1]!],
    dilation: two(dilation, 1),
    out: [x.shape[0]!, o, ...outSize],
  };
  // The forward conv over the output must come back to x's size; output_padding of a stride or more would not.
  const g = window2d(OP, geo.out4, geo.w4.slice(2), geo.stride, geo.padding, geo.dilation);
  if (g.oh !== geo.x4[2] || g.ow !== geo.x4[3])
    throw new OpError(
      OP,
      `${formatShape(extra)} must be smaller than the stride ${formatShape(stride)} on each axis`,
      'output_padding',
    );
  return geo;
}

export function convTransposeRule<T extends TensorType>(args: ConvTransposeArgs<T>): TensorType {
  const dtype = sameDtype(OP, { x: args.x, w: args.w });
  const geo = convTransposeGeometry(args);
  const bias = args.bias;
  if (bias !== null) {
    if (bias.dtype !== dtype) throw new OpError(OP, `has dtype ${bias.dtype}, x has ${dtype}`, 'bias');
    if (bias.shape.length !== 1 || bias.shape[0] !== geo.out[1])
      throw new OpError(OP, `must have shape [${geo.out[1]}], got ${formatShape(bias.shape)}`, 'bias');
  }
  return { shape: geo.out, dtype };
}
