// CPU kernel of raf.op.group_norm (specs/nn/group_norm.yaml): two-pass mean and variance per (n, group) in float64.

import type { GroupNormKernel } from '../../../generated/bridge/group_norm.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut, finish } from '../support.ts';

export const groupNormCpu: GroupNormKernel = ({ x, scale, bias }, { num_groups, epsilon }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const ss = scale.dataSync();
  const bs = bias.dataSync();
  const [n, c] = [x.shape[0]!, x.shape[1]!];
  const spatial = sizeOf(x.shape.slice(2));
  const per = c / num_groups;
  const d = per * spatial;
  for (let b = 0; b < n; b++) {
    for (let g = 0; g < num_groups; g++) {
      const base = (b * c + g * per) * spatial;
      let mean = 0;
      for (let k = 0; k < d; k++) mean += xs[base + k]!;
      mean /= d;
      let variance = 0;
      for (let k = 0; k < d; k++) variance += (xs[base + k]! - mean) ** 2;
      const inv = 1 / Math.sqrt(variance / d + epsilon);
      for (let k = 0; k < d; k++) {
        const ch = g * per + Math.floor(k / spatial);
        ys[base + k] = (xs[base + k]! - mean) * inv * ss[ch]! + bs[ch]!;
      }
    }
  }
  return finish(y);
};
