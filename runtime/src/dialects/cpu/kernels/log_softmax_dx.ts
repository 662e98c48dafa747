// CPU kernel of raf.op.log_softmax_dx (specs/nn/log_softmax_dx.yaml): dx = dy - exp(y) * sum(dy) along the axis.

import type { LogSoftmaxDxKernel } from '../../../generated/bridge/log_softmax_dx.ts';
import { allocOut, aroundAxis, finish } from '../support.ts';

export const logSoftmaxDxCpu: LogSoftmaxDxKernel = ({ y, dy }, { axis }, out) => {
  const dx = allocOut(out);
  const ys = y.dataSync();
  const dys = dy.dataSync();
  const dxs = dx.dataSync();
  const { outer, len, inner } = aroundAxis(y.shape, axis);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * len * inner + i;
      let total = 0;
      for (let k = 0; k < len; k++) total += dys[base + k * inner]!;
      for (let k = 0; k < len; k++) {
        const at = base + k * inner;
        dxs[at] = dys[at]! - Math.exp(ys[at]!) * total;
      }
    }
  }
  return finish(dx);
};
