// CPU kernel of raf.op.cross_entropy (specs/nn/cross_entropy.yaml): -log_softmax per row via a max-shifted log-sum-exp.

import type { CrossEntropyKernel } from '../../../generated/bridge/cross_entropy.ts';
import { allocOut, finish } from '../support.ts';
import { classIndex } from './nll_loss.ts';

/** log(sum(exp(row))) shifted by the row maximum, so no exp overflows. */
export function rowLogSumExp(xs: ArrayLike<number>, base: number, c: number): number {
  let max = -Infinity;
  for (let k = 0; k < c; k++) max = Math.max(max, xs[base + k]!);
  let sum = 0;
  for (let k = 0; k < c; k++) sum += Math.exp(xs[base + k]! - max);
  return max + Math.log(sum);
}

export const crossEntropyCpu: CrossEntropyKernel = ({ x, target }, _attrs, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ts = target.dataSync();
  const [n, c] = x.shape as [number, number];
  let sum = 0;
  for (let i = 0; i < n; i++) sum += rowLogSumExp(xs, i * c, c) - xs[i * c + classIndex('cross_entropy', ts, i, c)]!;
  y.dataSync()[0] = sum / n;
  return finish(y);
};
