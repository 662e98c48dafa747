// CPU kernel of raf.op.transpose (specs/tensor/transpose.yaml): walks the output in order, reading x through permuted strides.

import type { TransposeKernel } from '../../../generated/bridge/transpose.ts';
import { permutation } from '../../../ops/transpose.rule.ts';
import { stridesOf } from '../../../shape.ts';
import { stridedIndex } from '../slice.ts';
import { allocOut } from '../support.ts';

/** For each element of x transposed by `axes` (the output, in row-major order), its flat index in x. */
export function transposeIndex(shape: readonly number[], axes: readonly number[] | null, outShape: readonly number[]) {
  const xStrides = stridesOf(shape);
  return stridedIndex(
    0,
    permutation(axes, shape.length).map((p) => xStrides[p]!),
    outShape,
  );
}

export const transposeCpu: TransposeKernel = ({ x }, { axes }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const index = transposeIndex(x.shape, axes, out.shape);
  for (let i = 0; i < ys.length; i++) ys[i] = xs[index[i]!]!;
  return y;
};
