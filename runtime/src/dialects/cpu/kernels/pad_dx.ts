// CPU kernel of raf.op.pad_dx (specs/tensor/pad_dx.yaml): the interior of dy.

import type { PadDxKernel } from '../../../generated/bridge/pad_dx.ts';
import { interiorIndex } from '../padding.ts';
import { allocOut } from '../support.ts';

export const padDxCpu: PadDxKernel = ({ x, dy }, { pads }, out) => {
  const dx = allocOut(out);
  const dxs = dx.dataSync();
  const dys = dy.dataSync();
  const from = interiorIndex(x.shape, pads);
  for (let i = 0; i < dxs.length; i++) dxs[i] = dys[from[i]!]!;
  return dx;
};
