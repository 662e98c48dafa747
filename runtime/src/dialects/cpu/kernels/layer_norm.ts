// CPU kernel of raf.op.layer_norm (specs/nn/layer_norm.yaml): two-pass mean and variance per row, in float64.

import type { LayerNormKernel } from '../../../generated/bridge/layer_norm.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut, broadcastIndex, finish } from '../support.ts';

export const layerNormCpu: LayerNormKernel = ({ x, scale, bias }, { axis, epsilon }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const normalized = x.shape.slice(axis);
  const d = sizeOf(normalized);
  const rows = d === 0 ? 0 : xs.length / d;
  const ss = scale.dataSync();
  const bs = bias.dataSync();
  const si = broadcastIndex(scale.shape, normalized);
  const bi = broadcastIndex(bias.shape, normalized);
  for (let r = 0; r < rows; r++) {
    const base = r * d;
    let mean = 0;
    for (let k = 0; k < d; k++) mean += xs[base + k]!;
    mean /= d;
    // Variance from centered values (not E[x²] - E[x]²), which cancels catastrophically for large means.
    let variance = 0;
    for (let k = 0; k < d; k++) variance += (xs[base + k]! - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / d + epsilon);
    for (let k = 0; k < d; k++) {
      const s = ss[si === null ? k : si[k]!]!;
      const b = bs[bi === null ? k : bi[k]!]!;
      ys[base + k] = (xs[base + k]! - mean) * inv * s + b;
    }
  }
  return finish(y);
};
