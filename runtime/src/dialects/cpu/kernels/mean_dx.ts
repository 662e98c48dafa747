// CPU kernel of raf.op.mean_dx (specs/reduce/mean_dx.yaml): each element of x receives dy of its slot over the slot's count.
// raf-op-ignores: keepdims (dy's rank already says whether the reduced axes were kept)

import type { MeanDxKernel } from '../../../generated/bridge/mean_dx.ts';
import { allocOut, finish, reduceIndex } from '../support.ts';

export const meanDxCpu: MeanDxKernel = ({ x, dy }, { axis }, out) => {
  const dx = allocOut(out);
  const dxs = dx.dataSync();
  const dys = dy.dataSync();
  const from = reduceIndex(x.shape, axis);
  const count = dys.length === 0 ? 1 : dxs.length / dys.length;
  for (let i = 0; i < dxs.length; i++) dxs[i] = dys[from[i]!]! / count;
  return finish(dx);
};
