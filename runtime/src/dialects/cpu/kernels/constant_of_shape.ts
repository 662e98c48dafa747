// CPU kernel of raf.op.constant_of_shape (specs/tensor/constant_of_shape.yaml): the output filled with value.
// raf-op-ignores: dtype (the output type it is given already has it)

import type { ConstantOfShapeKernel } from '../../../generated/bridge/constant_of_shape.ts';
import { isFloat } from '../../../dtype.ts';
import { allocOut, finish } from '../support.ts';

export const constantOfShapeCpu: ConstantOfShapeKernel = (_inputs, { value }, out) => {
  const y = allocOut(out);
  y.dataSync().fill(out.dtype === 'bool' ? Number(value !== 0) : isFloat(out.dtype) ? value : Math.trunc(value));
  return finish(y);
};
