// CPU kernel of raf.op.reshape (specs/tensor/reshape.yaml): a copy of the elements in row-major order.
// raf-op-ignores: shape (the output type it is given already has it)

import type { ReshapeKernel } from '../../../generated/bridge/reshape.ts';
import { allocOut } from '../support.ts';

export const reshapeCpu: ReshapeKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  y.dataSync().set(x.dataSync());
  return y;
};
