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
  | 'axes'
  | 'antialias'
  | 'keep_aspect_ratio_policy'
  | 'extrapolation_value'
>;

/** One axis's geometry: lengths, the scale coordinates use, and the target length before flooring (ONNX's output_width). */
interface AxisGeometry {
  readonly inLen: number;
  readonly outLen: number;
  readonly scale: number;
  readonly width: number;
  /** tf_crop_and_resize's [start, end], normalized to the input. */
  readonly roi: readonly [number, number];
}

/**
 * Where output index i of a resized axis reads from, in input coordinates (ONNX's coordinate_transformation_mode, as
 * its reference computes it: align_corners, half_pixel_symmetric and tf_crop_and_resize use the unfloored width).
 */
function sourceCoord(mode: string, i: number, g: AxisGeometry): number {
  const { inLen, outLen, scale, width } = g;
  switch (mode) {
    case 'pytorch_half_pixel':
      return outLen > 1 ? (i + 0.5) / scale - 0.5 : 0;
    case 'align_corners':
      // ONNX measures the resized length as inLen * scale, before flooring (scales 0.6 on 4 columns: 2.4, not 2).
      return width === 1 ? 0 : (i * (inLen - 1)) / (width - 1);
    case 'asymmetric':
      return i / scale;
    case 'tf_half_pixel_for_nn':
      return (i + 0.5) / scale;
    case 'half_pixel_symmetric': {
      const offset = (inLen / 2) * (1 - outLen / width);
      return offset + (i + 0.5) / scale - 0.5;
    }
    case 'tf_crop_and_resize': {
      const [start, end] = g.roi;
      const v = width === 1 ? ((end - start) * (inLen - 1)) / 2 : (i * (end - start) * (inLen - 1)) / (width - 1);
      return v + start * (inLen - 1);
    }
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
  /** tf_crop_and_resize: the output indices whose source lies outside x, written with the extrapolation value. */
  readonly outside?: readonly boolean[];
}

/** The resized axes, each given once, in x's range. */
function resizedAxes(axes: readonly number[] | null | undefined, n: number): number[] {
  if (!axes) return [...Array(n).keys()];
  const out = axes.map((a) => {
    if (!Number.isInteger(a) || a < -n || a >= n)
      throw new OpError(OP, `axis ${a} is out of range for rank ${n}`, 'axes');
    return a < 0 ? a + n : a;
  });
  if (new Set(out).size !== out.length) throw new OpError(OP, `repeats an axis: [${axes.join(', ')}]`, 'axes');
  return out;
}

/** Each axis's lengths, scale and roi from scales or sizes (and keep_aspect_ratio_policy), as ONNX's reference does. */
function geometry(args: Plan): AxisGeometry[] {
  const { x } = args;
  const n = x.shape.length;
  const axes = resizedAxes(args.axes, n);
  const k = axes.length;
  const sizes = args.sizes && args.sizes.length ? args.sizes : null;
  const scales = args.scales.length ? args.scales : null;
  if (sizes && scales) throw new OpError(OP, 'give scales or sizes, not both', 'sizes');
  if (!sizes && !scales) throw new OpError(OP, 'needs scales or sizes', 'scales');
  const given = (sizes ?? scales)!;
  const which = sizes ? 'sizes' : 'scales';
  if (given.length !== k)
    throw new OpError(
      OP,
      args.axes
        ? `needs one value per axis in axes [${args.axes.join(', ')}], got ${given.length}`
        : `needs one value per axis of x ${formatShape(x.shape)}, got ${given.length}`,
      which,
    );
  if (scales?.some((s) => !(s > 0))) throw new OpError(OP, `must be positive, got [${scales.join(', ')}]`, 'scales');
  if (sizes?.some((s) => !(Number.isInteger(s) && s >= 1)))
    throw new OpError(OP, `must be positive integers, got ${formatShape(sizes)}`, 'sizes');
  const crop = args.coordinate_transformation_mode === 'tf_crop_and_resize';
  // roi is read by tf_crop_and_resize only (ONNX ignores it otherwise), which needs it (as ONNX's reference and
  // onnxruntime do).
  if (crop && args.roi.length !== 2 * k)
    throw new OpError(
      OP,
      `tf_crop_and_resize needs [starts..., ends...], ${2 * k} values, got ${args.roi.length}`,
      'roi',
    );
  if (args.antialias && args.mode === 'nearest')
    throw new OpError(OP, 'is only for linear and cubic interpolation, not nearest', 'antialias');
  const roiOf = (i: number): [number, number] => (crop ? [args.roi[i]!, args.roi[i + k]!] : [0, 1]);
  let common: number | null = null;
  if (sizes && args.keep_aspect_ratio_policy !== 'stretch') {
    const ratios = sizes.map((s, i) => s / x.shape[axes[i]!]!);
    common = args.keep_aspect_ratio_policy === 'not_larger' ? Math.min(...ratios) : Math.max(...ratios);
  }
  return x.shape.map((inLen, d): AxisGeometry => {
    const i = axes.indexOf(d);
    if (i < 0) return { inLen, outLen: inLen, scale: 1, width: inLen, roi: [0, 1] };
    let outLen: number;
    let scale: number;
    if (common !== null) {
      // keep_aspect_ratio_policy: one scale for every resized axis, lengths rounded half up.
      scale = common;
      outLen = Math.floor(scale * inLen + 0.5);
    } else if (sizes) {
      outLen = sizes[i]!;
      scale = outLen / inLen;
    } else {
      scale = scales![i]!;
      outLen = Math.floor(scale * inLen);
    }
    if (outLen < 1) throw new OpError(OP, `gives axis ${d} of length ${inLen} no output`, which);
    return { inLen, outLen, scale, width: scale * inLen, roi: roiOf(i) };
  });
}

/**
 * The taps of one output index at source coordinate v: the filter's cells around v (ONNX's reference picks them left of
 * v when v is whole), past the edge reading the edge or, with exclude_outside, dropped and the rest renormalized.
 */
function tapsAt(args: Plan, v: number, g: AxisGeometry): [number, number][] {
  const { inLen } = g;
  const clamp = (i: number) => Math.min(inLen - 1, Math.max(0, i));
  if (args.mode === 'nearest') return [[clamp(NEAREST[args.nearest_mode]!(v)), 1]];
  // The cell left of v, and v's distance from it in (0, 1].
  const left = Number.isInteger(v) ? v - 1 : Math.floor(v);
  const ratio = v - left;
  // antialias stretches the filter by 1 / scale when downsampling (ONNX's reference normalizes the stretched weights).
  const s = args.antialias ? Math.min(g.scale, 1) : 1;
  const radius = args.mode === 'linear' ? 1 : 2;
  const first = s < 1 ? Math.floor(-radius / s) + 1 : 1 - radius;
  let t: [number, number][] = [];
  for (let k = first; k < 1 - first + 1; k++) {
    const d = (k - ratio) * s;
    t.push([left + k, args.mode === 'linear' ? Math.max(0, 1 - Math.abs(d)) : cubic(d, args.cubic_coeff_a)]);
  }
  if (s < 1) {
    const total = t.reduce((sum, [, w]) => sum + w, 0);
    t = t.map(([i, w]) => [i, w / total]);
  }
  if (args.exclude_outside) {
    t = t.filter(([i]) => i >= 0 && i < inLen);
    const total = t.reduce((sum, [, w]) => sum + w, 0);
    if (total !== 0) t = t.map(([i, w]) => [i, w / total]);
  }
  // Zero weights stay: ONNX's reference multiplies them in, so a NaN or infinity there reaches the output.
  return t.map(([i, w]) => [clamp(i), w]);
}

/** The output shape and the passes, one per axis whose length, scale or crop changes. */
export function resizePlan(args: Plan): { shape: number[]; axes: ResizeAxis[] } {
  const geo = geometry(args);
  const crop = args.coordinate_transformation_mode === 'tf_crop_and_resize';
  const axes: ResizeAxis[] = [];
  geo.forEach((g, axis) => {
    const { inLen, outLen, scale, roi } = g;
    if (outLen === inLen && scale === 1 && roi[0] === 0 && roi[1] === 1) return;
    const outside: boolean[] = [];
    const taps = Array.from({ length: outLen }, (_, o): [number, number][] => {
      const v = sourceCoord(args.coordinate_transformation_mode, o, g);
      // tf_crop_and_resize: a source outside x reads extrapolation_value, as TensorFlow's CropAndResize does.
      outside.push(crop && (v < 0 || v > inLen - 1));
      return outside[o] ? [] : tapsAt(args, v, g);
    });
    axes.push(outside.some(Boolean) ? { axis, inLen, outLen, taps, outside } : { axis, inLen, outLen, taps });
  });
  return { shape: geo.map((g) => g.outLen), axes };
}

export function resizeRule<T extends TensorType>(args: ResizeArgs<T>): TensorType {
  if (args.mode !== 'nearest' && !/^float/.test(args.x.dtype))
    throw new OpError(OP, `${args.mode} interpolation needs a float x, got ${args.x.dtype}`, 'x');
  return { shape: resizePlan(args).shape, dtype: args.x.dtype };
}
