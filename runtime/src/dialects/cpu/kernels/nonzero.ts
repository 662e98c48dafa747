// CPU kernel of raf.op.nonzero (specs/tensor/nonzero.yaml): row d holds axis d's coordinate of each nonzero element,
// the elements in row-major order. NaN is nonzero.

import type { NonzeroKernel } from '../../../generated/bridge/nonzero.ts';
import { allocOut } from '../support.ts';

export const nonzeroCpu: NonzeroKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const shape = x.shape.length ? x.shape : [1];
  const rank = shape.length;
  const count = out.shape[1]!;
  const coord = new Array<number>(rank).fill(0);
  let n = 0;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] !== 0) {
      for (let d = 0; d < rank; d++) ys[d * count + n] = coord[d]!;
      n++;
    }
    for (let d = rank - 1; d >= 0; d--) {
      if (++coord[d]! < shape[d]!) break;
      coord[d] = 0;
    }
  }
  return y;
};
