// CPU kernel of raf.op.transpose (specs/tensor/transpose.yaml): walks the output in order, reading x through permuted strides.

import type { TransposeKernel } from '../../../generated/bridge/transpose.ts';
import { permutation } from '../../../ops/transpose.rule.ts';
import { stridesOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

export const transposeCpu: TransposeKernel = ({ x }, { axes }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const perm = permutation(axes, x.shape.length);
  const xStrides = stridesOf(x.shape);
  const strides = perm.map((p) => xStrides[p]!);
  const rank = out.shape.length;
  const counter = new Array<number>(rank).fill(0);
  let src = 0;
  for (let i = 0; i < ys.length; i++) {
    ys[i] = xs[src]!;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      src += strides[d]!;
      if (counter[d]! < out.shape[d]!) break;
      src -= strides[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return y;
};
