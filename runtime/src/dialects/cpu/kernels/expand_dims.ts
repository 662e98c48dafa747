// CPU kernel of raf.op.expand_dims (specs/tensor/expand_dims.yaml): only the shape changes, so the elements are copied in order.
// raf-op-ignores: axis (the output type it is given already has the new shape)

import type { ExpandDimsKernel } from '../../../generated/bridge/expand_dims.ts';
import { allocOut } from '../support.ts';

export const expandDimsCpu: ExpandDimsKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  y.dataSync().set(x.dataSync());
  return y;
};
