// CPU kernel of raf.op.sum_dx (specs/reduce/sum_dx.yaml): every element of x receives dy of its reduced slot.
// raf-op-ignores: keepdims (dy's rank already says whether the reduced axes were kept)

import type { SumDxKernel } from '../../../generated/bridge/sum_dx.ts';
import { allocOut, finish, reduceIndex } from '../support.ts';

export const sumDxCpu: SumDxKernel = ({ x, dy }, { axis }, out) => {
  const dx = allocOut(out);
  const dxs = dx.dataSync();
  const dys = dy.dataSync();
  // A full sum (the usual loss) hands back one value: every element gets it, with no index map to build.
  if (dys.length === 1) {
    const v = dys[0]!;
    for (let i = 0; i < dxs.length; i++) dxs[i] = v;
    return finish(dx);
  }
  // keepdims only changes dy's shape, not its element order, so the same index map serves both.
  const from = reduceIndex(x.shape, axis);
  for (let i = 0; i < dxs.length; i++) dxs[i] = dys[from[i]!]!;
  return finish(dx);
};
