// CPU kernel of raf.op.cast (specs/tensor/cast.yaml): per element through castScalar, the runtime's one conversion rule.

import type { CastKernel } from '../../../generated/bridge/cast.ts';
import { castScalar } from '../../../dtype.ts';
import { allocOut } from '../support.ts';

export const castCpu: CastKernel = ({ x }, { dtype }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  for (let i = 0; i < xs.length; i++) ys[i] = castScalar(dtype, xs[i]!);
  return y;
};
