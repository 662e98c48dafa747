// Hand-written gradient of raf.op.resize (specs/nn/resize.yaml). Every mode is linear in x: each resized axis applies
// y = x ×_axis A with A [in, out] holding the taps' weights, so the gradient applies Aᵀ per axis in reverse order, as
// matmuls with the axis moved last (any dialect with matmul runs it). Nearest sends each output's gradient to the one
// cell it copied; linear and cubic spread it by the interpolation weights. tf_crop_and_resize's extrapolated outputs are
// constants (no taps), so they send nothing back.

import type { ResizeGradContext, ResizeGradResult } from '../generated/grad/resize.ts';
import { matmul } from '../generated/api/matmul.ts';
import { transpose } from '../generated/api/transpose.ts';
import { placeOn, tensor, type Tensor } from '../tensor.ts';
import { resizePlan } from './resize.rule.ts';

export function resizeGradImpl({
  x,
  dy,
  scales,
  sizes,
  roi,
  mode,
  coordinate_transformation_mode,
  nearest_mode,
  cubic_coeff_a,
  exclude_outside,
  axes,
  antialias,
  keep_aspect_ratio_policy,
  extrapolation_value,
}: ResizeGradContext): ResizeGradResult {
  const plan = resizePlan({
    x,
    scales,
    sizes,
    roi,
    mode,
    coordinate_transformation_mode,
    nearest_mode,
    cubic_coeff_a,
    exclude_outside,
    axes,
    antialias,
    keep_aspect_ratio_policy,
    extrapolation_value,
  });
  const n = x.shape.length;
  let g: Tensor = dy;
  for (const { axis, inLen, outLen, taps } of [...plan.axes].reverse()) {
    const at = new Array<number>(outLen * inLen).fill(0);
    taps.forEach((t, o) => t.forEach(([i, w]) => (at[o * inLen + i] += w)));
    const aT = placeOn(tensor(at, { dtype: dy.dtype, shape: [outLen, inLen] }), dy.device);
    if (axis === n - 1) g = matmul(g, aT);
    else {
      const perm = [...Array(n).keys()];
      [perm[axis], perm[n - 1]] = [n - 1, axis];
      g = transpose(matmul(transpose(g, perm), aT), perm);
    }
  }
  return { x: g };
}
