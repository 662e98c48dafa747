// CPU kernel of raf.op.rms_norm (specs/nn/rms_norm.yaml): the mean square per row in float64.

import type { RmsNormKernel } from '../../../generated/bridge/rms_norm.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut, broadcastIndex, finish } from '../support.ts';

export const rmsNormCpu: RmsNormKernel = ({ x, scale }, { axis, epsilon }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const normalized = x.shape.slice(axis);
  const d = sizeOf(normalized);
  const rows = d === 0 ? 0 : xs.length / d;
  const ss = scale.dataSync();
  const si = broadcastIndex(scale.shape, normalized);
  for (let r = 0; r < rows; r++) {
    const base = r * d;
    let sq = 0;
    for (let k = 0; k < d; k++) sq += xs[base + k]! * xs[base + k]!;
    const inv = 1 / Math.sqrt(sq / d + epsilon);
    for (let k = 0; k < d; k++) ys[base + k] = xs[base + k]! * inv * ss[si === null ? k : si[k]!]!;
  }
  return finish(y);
};
