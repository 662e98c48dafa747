// CPU kernel of raf.op.pad (specs/tensor/pad.yaml): fill with value, then copy x into the interior.

import type { PadKernel } from '../../../generated/bridge/pad.ts';
import { castScalar } from '../../../dtype.ts';
import { interiorIndex } from '../padding.ts';
import { allocOut } from '../support.ts';

export const padCpu: PadKernel = ({ x }, { pads, value }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  ys.fill(castScalar(out.dtype, value));
  const to = interiorIndex(x.shape, pads);
  for (let i = 0; i < xs.length; i++) ys[to[i]!] = xs[i]!;
  return y;
};
