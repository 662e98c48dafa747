// CPU kernel of raf.op.size (specs/tensor/size.yaml): x's element count, from its shape alone.

import type { SizeKernel } from '../../../generated/bridge/size.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut } from '../support.ts';

export const sizeCpu: SizeKernel = ({ x }, _attrs, out) => {
  const y = allocOut(out);
  y.dataSync()[0] = sizeOf(x.shape);
  return y;
};
