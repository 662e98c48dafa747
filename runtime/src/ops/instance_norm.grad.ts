// Hand-written gradient of raf.op.instance_norm (specs/nn/instance_norm.yaml), from ops so it runs on every device:
// with x̂ = (x - mean) * rstd over the spatial axes, dx = rstd * (g - mean(g) - x̂ * mean(g * x̂)) where g = dy * scale,
// dscale = sum(dy * x̂) and dbias = sum(dy) over the batch and spatial axes.

import type { InstanceNormGradContext, InstanceNormGradResult } from '../generated/grad/instance_norm.ts';
import { add } from '../generated/api/add.ts';
import { mean } from '../generated/api/mean.ts';
import { multiply } from '../generated/api/multiply.ts';
import { reshape } from '../generated/api/reshape.ts';
import { rsqrt } from '../generated/api/rsqrt.ts';
import { subtract } from '../generated/api/subtract.ts';
import { sum } from '../generated/api/sum.ts';

export function instanceNormGradImpl({ x, scale, bias, dy, eps }: InstanceNormGradContext): InstanceNormGradResult {
  const spatial = x.shape.map((_, k) => k).slice(2);
  const centered = subtract(x, mean(x, spatial, true));
  const rstd = rsqrt(add(mean(multiply(centered, centered), spatial, true), eps));
  const xhat = multiply(centered, rstd);
  const perChannel = x.shape.map((d, k) => (k === 1 ? d : 1));
  const g = multiply(dy, reshape(scale, perChannel));
  const dx = multiply(
    rstd,
    subtract(subtract(g, mean(g, spatial, true)), multiply(xhat, mean(multiply(g, xhat), spatial, true))),
  );
  const batchAndSpatial = [0, ...spatial];
  return { x: dx, scale: sum(multiply(dy, xhat), batchAndSpatial), bias: sum(dy, batchAndSpatial) };
}
