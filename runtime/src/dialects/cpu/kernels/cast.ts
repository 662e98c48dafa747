// CPU kernel of raf.op.cast (specs/tensor/cast.yaml): per element through castScalar, the runtime's one conversion rule
// (float → integer truncates toward zero, fixed-width integers wrap, float16/bfloat16 round half to even); an int64 or
// uint64 result outside its exact range (or from NaN/Infinity) is refused naming x.

import type { CastKernel } from '../../../generated/bridge/cast.ts';
import { castScalar, checkWide } from '../../../dtype.ts';
import { allocOut } from '../support.ts';

export const castCpu: CastKernel = ({ x }, { dtype }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  // To float32/float64 castScalar keeps the value and the store rounds it: one typed-array copy does the same.
  if (dtype === 'float32' || dtype === 'float64') (ys as Float32Array | Float64Array).set(xs as ArrayLike<number>);
  else for (let i = 0; i < xs.length; i++) ys[i] = castScalar(dtype, xs[i]!);
  checkWide(dtype, 'cast', 'x', ys);
  return y;
};
