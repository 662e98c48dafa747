// CPU kernel of raf.op.squeeze (specs/tensor/squeeze.yaml): only the shape changes, so the elements are copied in order.
// raf-op-ignores: axis (the output type it is given already has the new shape)

import type { SqueezeKernel } from '../../../generated/bridge/squeeze.ts';
import { allocOut } from '../support.ts';

export const squeezeCpu: SqueezeKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  y.dataSync().set(x.dataSync());
  return y;
};
