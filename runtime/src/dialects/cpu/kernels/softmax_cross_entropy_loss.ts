// CPU kernel of raf.op.softmax_cross_entropy_loss (specs/nn/softmax_cross_entropy_loss.yaml): log_softmax over axis 1
// in float64 (max-shifted), then the loss as negative_log_likelihood_loss computes it.

import type { SoftmaxCrossEntropyLossKernel } from '../../../generated/bridge/softmax_cross_entropy_loss.ts';
import { allocOut, finish } from '../support.ts';
import { nllLossOut } from './negative_log_likelihood_loss.ts';

export const softmaxCrossEntropyLossCpu: SoftmaxCrossEntropyLossKernel = (
  { x, target, weight },
  { reduction, ignore_index },
  outs,
) => {
  const [N, C] = [x.shape[0]!, x.shape[1]!];
  const inner = x.shape.slice(2).reduce((p, d) => p * d, 1);
  const xv = x.dataSync();
  const lp = new Float64Array(xv.length);
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < inner; i++) {
      const at = (c: number) => (n * C + c) * inner + i;
      let m = -Infinity;
      for (let c = 0; c < C; c++) m = Math.max(m, xv[at(c)]!);
      let s = 0;
      for (let c = 0; c < C; c++) s += Math.exp(xv[at(c)]! - m);
      const lse = m + Math.log(s);
      for (let c = 0; c < C; c++) lp[at(c)] = xv[at(c)]! - lse;
    }
  }
  const logProb = allocOut(outs[1]!);
  logProb.dataSync().set(lp);
  const loss = nllLossOut('softmax_cross_entropy_loss', lp, x, target, weight, reduction, ignore_index, outs[0]!);
  return [loss, finish(logProb)];
};
