// CPU kernel of raf.op.avg_pool (specs/nn/avg_pool.yaml): window sums in float64 over the taps inside x, divided by
// their count, or with count_include_pad by the count of taps inside the padded x.

import type { AvgPoolKernel } from '../../../generated/bridge/avg_pool.ts';
import { forEachWindow, poolGeometry } from '../../../ops/pool_nd.ts';
import { allocOut, finish } from '../support.ts';

export const avgPoolCpu: AvgPoolKernel = ({ x }, attrs, out) => {
  const y = allocOut(out);
  const g = poolGeometry('avg_pool', x.shape, attrs);
  const xv = x.dataSync();
  const yv = y.dataSync();
  const plane = g.input.reduce((p, d) => p * d, 1);
  const outPlane = g.output.reduce((p, d) => p * d, 1);
  const planes = x.shape[0]! * x.shape[1]!;
  forEachWindow(g, (o, taps, padded, n) => {
    let count = 0;
    for (let t = 0; t < n; t++) if (attrs.count_include_pad ? padded[t] : taps[t]! >= 0) count++;
    for (let p = 0; p < planes; p++) {
      const base = p * plane;
      let sum = 0;
      for (let t = 0; t < n; t++) if (taps[t]! >= 0) sum += xv[base + taps[t]!]!;
      yv[p * outPlane + o] = sum / count;
    }
  });
  return finish(y);
};
