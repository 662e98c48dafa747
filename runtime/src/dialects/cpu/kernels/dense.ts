// CPU kernel of raf.op.dense (specs/linalg/dense.yaml): x · wᵀ through the shared matrix product, then + b per unit.

import type { DenseKernel } from '../../../generated/bridge/dense.ts';
import { matrixProduct } from '../matmul.ts';
import { finish } from '../support.ts';

export const denseCpu: DenseKernel = ({ x, w, b }, _attrs, out) => {
  const y = matrixProduct(x, w, out, false, true, 'dense');
  const ys = y.dataSync();
  const bs = b.dataSync();
  for (let i = 0; i < ys.length; i++) ys[i]! += bs[i % bs.length]!;
  return finish(y);
};
