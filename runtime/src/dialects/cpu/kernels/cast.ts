// CPU kernel of raf.op.cast (specs/tensor/cast.yaml): per element through castScalar, the runtime's one conversion rule;
// an int64 result beyond ±2^53 (or from NaN/Infinity) is refused naming x.

import type { CastKernel } from '../../../generated/bridge/cast.ts';
import { castScalar, checkInt64 } from '../../../dtype.ts';
import { allocOut } from '../support.ts';

export const castCpu: CastKernel = ({ x }, { dtype }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  for (let i = 0; i < xs.length; i++) ys[i] = castScalar(dtype, xs[i]!);
  if (dtype === 'int64') checkInt64('cast', 'x', ys);
  return y;
};
