// CPU kernel of raf.op.instance_norm (specs/nn/instance_norm.yaml): per (n, c) slice, the mean and the population
// variance over the spatial axes in float64, then scale[c] * (x - mean) / sqrt(var + eps) + bias[c].

import type { InstanceNormKernel } from '../../../generated/bridge/instance_norm.ts';
import { instanceNormLayout } from '../../../ops/instance_norm.layout.ts';
import { allocOut, finish } from '../support.ts';

export const instanceNormCpu: InstanceNormKernel = ({ x, scale, bias }, { eps }, out) => {
  const { n, c, spatial } = instanceNormLayout(x, scale, bias);
  const y = allocOut(out);
  const xv = x.dataSync();
  const sv = scale.dataSync();
  const bv = bias.dataSync();
  const yv = y.dataSync();
  for (let slice = 0; slice < n * c; slice++) {
    const base = slice * spatial;
    let mean = 0;
    for (let s = 0; s < spatial; s++) mean += xv[base + s]!;
    mean /= spatial;
    let variance = 0;
    for (let s = 0; s < spatial; s++) variance += (xv[base + s]! - mean) ** 2;
    variance /= spatial;
    const k = sv[slice % c]! / Math.sqrt(variance + eps);
    for (let s = 0; s < spatial; s++) yv[base + s] = (xv[base + s]! - mean) * k + bv[slice % c]!;
  }
  return finish(y);
};
