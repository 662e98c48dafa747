// CPU kernel of raf.op.flatten (specs/tensor/flatten.yaml): a copy of the elements in row-major order.
// raf-op-ignores: axis (the output type it is given already has the 2-D shape)

import type { FlattenKernel } from '../../../generated/bridge/flatten.ts';
import { allocOut } from '../support.ts';

export const flattenCpu: FlattenKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  y.dataSync().set(x.dataSync());
  return y;
};
