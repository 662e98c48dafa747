// CPU kernel of raf.op.logsumexp (specs/reduce/logsumexp.yaml): max-shifted so exp never overflows.

import type { LogsumexpKernel } from '../../../generated/bridge/logsumexp.ts';
import { allocOut, finish, reduceIndex } from '../support.ts';

export const logsumexpCpu: LogsumexpKernel = ({ x }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const to = reduceIndex(x.shape, axis);
  const max = new Float64Array(y.size).fill(-Infinity);
  for (let i = 0; i < xs.length; i++) max[to[i]!] = Math.max(max[to[i]!]!, xs[i]!);
  const sum = new Float64Array(y.size);
  // An all -inf slot has max -inf; shifting by it would give NaN, so shift by 0 there.
  const shift = (j: number) => (Number.isFinite(max[j]!) ? max[j]! : 0);
  for (let i = 0; i < xs.length; i++) sum[to[i]!]! += Math.exp(xs[i]! - shift(to[i]!));
  const ys = y.dataSync();
  for (let j = 0; j < ys.length; j++) ys[j] = shift(j) + Math.log(sum[j]!);
  return finish(y);
};
