// CPU kernel of raf.op.range (specs/tensor/range.yaml): start + i · delta for each of the output's elements.

import type { RangeKernel } from '../../../generated/bridge/range.ts';
import { allocOut, finish } from '../support.ts';

export const rangeCpu: RangeKernel = ({ start, limit: _limit, delta }, _attrs, out) => {
  // limit decided the output's length, which `out` already carries.
  const y = allocOut(out);
  const [s, d] = [Number(start.dataSync()[0]), Number(delta.dataSync()[0])];
  const ys = y.dataSync();
  for (let i = 0; i < ys.length; i++) ys[i] = s + i * d;
  return finish(y);
};
