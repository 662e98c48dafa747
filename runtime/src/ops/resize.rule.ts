// Hand-written shape rule of raf.op.resize (specs/nn/resize.yaml) and the interpolation taps its kernels share: resize is
// separable, so each resized axis is one pass where output index o reads a few input indices with weights.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { ResizeArgs } from '../generated/schema/resize.ts';

const OP = 'resize';

type Plan = Pick<
  ResizeArgs<TensorType>,
  | 'x'
  | 'roi'
  | 'scales'
  | 'sizes'
  | 'mode'
  | 'coordinate_transformation_mode'
  | 'nearest_mode'
  | 'cubic_coeff_a'
  | 'exclude_outside'
>;

/** Where output index i of a resized axis reads from, in input coordinates (ONNX's coordinate_transformation_mode). */
function sourceCoord(mode: string, i: number, inLen: number, outLen: number, scale: number): number {
  switch (mode) {
    case 'pytorch_half_pixel':
      return outLen > 1 ? (i + 0.5) / scale - 0.5 : 0;
    case 'align_corners':
      return outLen > 1 ? (i * (inLen - 1)) / (outLen - 1) : 0;
    case 'asymmetric':
      return i / scale;
    case 'tf_half_pixel_for_nn':
      return (i + 0.5) / scale;
    default:
      return (i + 0.5) / scale - 0.5;
  }
}

const NEAREST: Readonly<Record<string, (v: number) => number>> = {
  round_prefer_floor: (v) => Math.ceil(v - 0.5),
  round_prefer_ceil: (v) => Math.floor(v + 0.5),
  floor: Math.floor,
  ceil: Math.ceil,
};

/** Keys' cubic kernel with coefficient a at distance d. */
function cubic(d: number, a: number): number {
  const x = Math.abs(d);
  return x <= 1 ? (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1 : x < 2 ? a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a : 0;
}

/** One resized axis: for each output index, its (input index, weight) taps. */
export interface ResizeAxis {
  readonly axis: number;
  readonly inLen: number;
  readonly outLen: number;
  readonly taps: readonly (readonly [number, number])[][];
}

/** The output shape and the passes, one per axis whose length or scale changes. */
export function resizePlan(args: Plan): { shape: number[]; axes: ResizeAxis[] } {
  const { x } = args;
  const n = x.shape.length;
  if (args.roi.length)
    throw new OpError(OP, 'is only used by tf_crop_and_resize, which resize does not support', 'roi');
  const sizes = args.sizes && args.sizes.length ? args.sizes : null;
  const scales = args.scales.length ? args.scales : null;
  if (sizes && scales) throw new OpError(OP, 'give scales or sizes, not both', 'sizes');
  if (!sizes && !scales) throw new OpError(OP, 'needs scales or sizes', 'scales');
  const given = (sizes ?? scales)!;
  if (given.length !== n)
    throw new OpError(
      OP,
      `needs one value per axis of x ${formatShape(x.shape)}, got ${given.length}`,
      sizes ? 'sizes' : 'scales',
    );
  if (scales?.some((s) => !(s > 0))) throw new OpError(OP, `must be positive, got [${scales.join(', ')}]`, 'scales');
  if (sizes?.some((s) => !(Number.isInteger(s) && s >= 1)))
    throw new OpError(OP, `must be positive integers, got ${formatShape(sizes)}`, 'sizes');
  const round = NEAREST[args.nearest_mode]!;
  const shape: number[] = [];
  const axes: ResizeAxis[] = [];
  for (let axis = 0; axis < n; axis++) {
    const inLen = x.shape[axis]!;
    const outLen = sizes ? sizes[axis]! : Math.floor(inLen * given[axis]!);
    if (outLen < 1) throw new OpError(OP, `gives axis ${axis} of length ${inLen} no output`, 'scales');
    shape.push(outLen);
    const scale = sizes ? outLen / inLen : given[axis]!;
    if (outLen === inLen && scale === 1) continue;
    const clamp = (i: number) => Math.min(inLen - 1, Math.max(0, i));
    const taps = Array.from({ length: outLen }, (_, o): [number, number][] => {
      const v = sourceCoord(args.coordinate_transformation_mode, o, inLen, outLen, scale);
      if (args.mode === 'nearest') return [[clamp(round(v)), 1]];
      if (args.mode === 'linear') {
        const c = clamp(v);
        const i0 = Math.floor(c);
        return [
          [i0, 1 - (c - i0)],
          [Math.min(i0 + 1, inLen - 1), c - i0],
        ];
      }
      // Cubic: the four cells around v; past the edge they read the edge, or with exclude_outside drop out and the
      // rest are renormalized.
      const base = Math.floor(v);
      let t: [number, number][] = [-1, 0, 1, 2].map((k) => [base + k, cubic(v - base - k, args.cubic_coeff_a)]);
      if (args.exclude_outside) {
        t = t.filter(([i]) => i >= 0 && i < inLen);
        const total = t.reduce((s, [, w]) => s + w, 0);
        t = t.map(([i, w]) => [i, w / total]);
      }
      return t.map(([i, w]) => [clamp(i), w]);
    });
    axes.push({ axis, inLen, outLen, taps });
  }
  return { shape, axes };
}

export function resizeRule<T extends TensorType>(args: ResizeArgs<T>): TensorType {
  if (args.mode !== 'nearest' && !/^float/.test(args.x.dtype))
    throw new OpError(OP, `${args.mode} interpolation needs a float x, got ${args.x.dtype}`, 'x');
  return { shape: resizePlan(args).shape, dtype: args.x.dtype };
}
