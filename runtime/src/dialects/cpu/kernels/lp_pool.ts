// CPU kernel of raf.op.lp_pool (specs/nn/lp_pool.yaml): each window's (sum |x|^p)^(1/p) in float64 over the taps
// inside x (padding adds zeros, so it changes nothing).

import type { LpPoolKernel } from '../../../generated/bridge/lp_pool.ts';
import { forEachWindow, poolGeometry } from '../../../ops/pool_nd.ts';
import { allocOut, finish } from '../support.ts';

export const lpPoolCpu: LpPoolKernel = ({ x }, attrs, out) => {
  const y = allocOut(out);
  const g = poolGeometry('lp_pool', x.shape, attrs);
  const { p } = attrs;
  const xv = x.dataSync();
  const yv = y.dataSync();
  const plane = g.input.reduce((a, d) => a * d, 1);
  const outPlane = g.output.reduce((a, d) => a * d, 1);
  const planes = x.shape[0]! * x.shape[1]!;
  forEachWindow(g, (o, taps, _padded, n) => {
    for (let q = 0; q < planes; q++) {
      const base = q * plane;
      let sum = 0;
      for (let t = 0; t < n; t++) if (taps[t]! >= 0) sum += Math.abs(xv[base + taps[t]!]!) ** p;
      yv[q * outPlane + o] = p === 1 ? sum : p === 2 ? Math.sqrt(sum) : sum ** (1 / p);
    }
  });
  return finish(y);
};
