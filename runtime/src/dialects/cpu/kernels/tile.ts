// CPU kernel of raf.op.tile (specs/tensor/tile.yaml): each output element reads x at its coordinate modulo x's shape.

import type { TileKernel } from '../../../generated/bridge/tile.ts';
import { stridesOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

// raf-op-ignores: reps (the output type it is given already holds x.shape * reps)
export const tileCpu: TileKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const rank = out.shape.length;
  const xStrides = stridesOf(x.shape);
  const coord = new Array<number>(rank).fill(0);
  for (let i = 0; i < ys.length; i++) {
    let off = 0;
    for (let d = 0; d < rank; d++) off += (coord[d]! % x.shape[d]!) * xStrides[d]!;
    ys[i] = xs[off]!;
    for (let d = rank - 1; d >= 0; d--) {
      if (++coord[d]! < out.shape[d]!) break;
      coord[d] = 0;
    }
  }
  return y;
};
