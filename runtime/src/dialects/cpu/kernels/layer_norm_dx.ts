// CPU kernel of raf.op.layer_norm_dx (specs/nn/layer_norm_dx.yaml): dx = (g - mean(g) - x̂ · mean(g · x̂)) / σ, g = dy · scale.

import type { LayerNormDxKernel } from '../../../generated/bridge/layer_norm_dx.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut, broadcastIndex, finish } from '../support.ts';

export const layerNormDxCpu: LayerNormDxKernel = ({ x, scale, dy }, { axis, epsilon }, out) => {
  const dx = allocOut(out);
  const xs = x.dataSync();
  const dys = dy.dataSync();
  const dxs = dx.dataSync();
  const normalized = x.shape.slice(axis);
  const d = sizeOf(normalized);
  const rows = d === 0 ? 0 : xs.length / d;
  const ss = scale.dataSync();
  const si = broadcastIndex(scale.shape, normalized);
  const xhat = new Float64Array(d);
  const g = new Float64Array(d);
  for (let r = 0; r < rows; r++) {
    const base = r * d;
    let mean = 0;
    for (let k = 0; k < d; k++) mean += xs[base + k]!;
    mean /= d;
    let variance = 0;
    for (let k = 0; k < d; k++) variance += (xs[base + k]! - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / d + epsilon);
    let meanG = 0;
    let meanGx = 0;
    for (let k = 0; k < d; k++) {
      xhat[k] = (xs[base + k]! - mean) * inv;
      g[k] = dys[base + k]! * ss[si === null ? k : si[k]!]!;
      meanG += g[k]!;
      meanGx += g[k]! * xhat[k]!;
    }
    meanG /= d;
    meanGx /= d;
    for (let k = 0; k < d; k++) dxs[base + k] = (g[k]! - meanG - xhat[k]! * meanGx) * inv;
  }
  return finish(dx);
};
