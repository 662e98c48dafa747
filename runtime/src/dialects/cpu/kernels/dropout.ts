// CPU kernel of raf.op.dropout (specs/nn/dropout.yaml): u from NumPy's legacy MT19937 stream (seeded, or from a
// fresh random seed), mask = u >= ratio, y = x * mask * (1 / (1 - ratio)).

import type { DropoutKernel } from '../../../generated/bridge/dropout.ts';
import { OpError } from '../../../errors.ts';
import { Mt19937 } from '../../../ops/mt19937.ts';
import { allocOut, finish } from '../support.ts';

export const dropoutCpu: DropoutKernel = ({ x, ratio }, { seed }, outs) => {
  const y = allocOut(outs[0]!);
  const mask = allocOut(outs[1]!);
  const r = ratio ? Number(ratio.dataSync()[0]) : 0.5;
  if (!(r >= 0 && r < 1)) throw new OpError('dropout', `must be in [0, 1), got ${r}`, 'ratio');
  const xv = x.dataSync();
  const yv = y.dataSync();
  const mv = mask.dataSync();
  if (r === 0) {
    yv.set(xv);
    mv.fill(1);
    return [y, mask];
  }
  const rng = new Mt19937(seed ?? Math.floor(Math.random() * 2 ** 32));
  // NumPy computes the scale in the ratio's precision (a float32 ratio gives a float32 scale).
  const scale = ratio && ratio.dtype !== 'float64' ? Math.fround(1 / Math.fround(1 - r)) : 1 / (1 - r);
  for (let i = 0; i < xv.length; i++) {
    const keep = rng.nextDouble() >= r;
    mv[i] = keep ? 1 : 0;
    yv[i] = keep ? xv[i]! * scale : 0;
  }
  return [finish(y), mask];
};
