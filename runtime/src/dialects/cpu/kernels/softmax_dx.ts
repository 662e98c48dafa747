// CPU kernel of raf.op.softmax_dx (specs/nn/softmax_dx.yaml): dx = y * (dy - sum(dy * y)) along the axis.

import type { SoftmaxDxKernel } from '../../../generated/bridge/softmax_dx.ts';
import { allocOut, aroundAxis, finish } from '../support.ts';

export const softmaxDxCpu: SoftmaxDxKernel = ({ y, dy }, { axis }, out) => {
  const dx = allocOut(out);
  const ys = y.dataSync();
  const dys = dy.dataSync();
  const dxs = dx.dataSync();
  const { outer, len, inner } = aroundAxis(y.shape, axis);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      let dot = 0;
      for (let k = 0; k < len; k++) dot += dys[base + k * inner]! * ys[base + k * inner]!;
      for (let k = 0; k < len; k++) {
        const at = base + k * inner;
        dxs[at] = ys[at]! * (dys[at]! - dot);
      }
    }
  }
  return finish(dx);
};
