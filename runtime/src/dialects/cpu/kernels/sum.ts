// CPU kernel of raf.op.sum (specs/reduce/sum.yaml): accumulates in float64 whatever the dtype.
// raf-op-ignores: keepdims (the output type already has the kept size-1 axes; the flat layout is the same)

import type { SumKernel } from '../../../generated/bridge/sum.ts';
import { allocOut, finish, reduceIndex } from '../support.ts';

export const sumCpu: SumKernel = ({ x }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const acc = new Float64Array(y.size);
  const to = reduceIndex(x.shape, axis);
  for (let i = 0; i < xs.length; i++) acc[to[i]!]! += xs[i]!;
  y.dataSync().set(acc);
  return finish(y);
};
