// CPU kernel of raf.op.max_pool (specs/nn/max_pool.yaml): per window the first tap holding the maximum (strictly
// greater wins, so ties keep the first) and its index into x flattened, row-major or, with storage_order = 1,
// column-major over the spatial axes (the [N, C] plane offset is row-major either way, as ONNX's MaxPool gives it).

import type { MaxPoolKernel } from '../../../generated/bridge/max_pool.ts';
import { forEachWindow, poolGeometry } from '../../../ops/pool_nd.ts';
import { allocOut, finish } from '../support.ts';

export const maxPoolCpu: MaxPoolKernel = ({ x }, attrs, outs) => {
  const values = allocOut(outs[0]!);
  const indices = allocOut(outs[1]!);
  const g = poolGeometry('max_pool', x.shape, attrs);
  const xv = x.dataSync();
  const vv = values.dataSync();
  const iv = indices.dataSync();
  const plane = g.input.reduce((p, d) => p * d, 1);
  const outPlane = g.output.reduce((p, d) => p * d, 1);
  const planes = x.shape[0]! * x.shape[1]!;
  // A row-major in-plane offset → the column-major one storage_order = 1 reports.
  const colMajor = (off: number): number => {
    let r = off;
    let idx = 0;
    let mult = 1;
    const coords: number[] = [];
    for (let i = g.rank - 1; i >= 0; i--) {
      coords[i] = r % g.input[i]!;
      r = Math.floor(r / g.input[i]!);
    }
    for (let i = 0; i < g.rank; i++) {
      idx += coords[i]! * mult;
      mult *= g.input[i]!;
    }
    return idx;
  };
  forEachWindow(g, (o, taps, _padded, n) => {
    for (let p = 0; p < planes; p++) {
      const base = p * plane;
      let best = -Infinity;
      let at = -1;
      for (let t = 0; t < n; t++) {
        const off = taps[t]!;
        if (off < 0) continue;
        const v = xv[base + off]!;
        if (at < 0 || v > best) {
          best = v;
          at = off;
        }
      }
      vv[p * outPlane + o] = best;
      iv[p * outPlane + o] = at < 0 ? -1 : base + (attrs.storage_order === 1 ? colMajor(at) : at);
    }
  });
  return [finish(values), indices];
};
