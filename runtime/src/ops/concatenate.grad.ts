// Hand-written gradient of raf.op.concatenate (specs/tensor/concatenate.yaml): dy split back at the inputs' sizes along axis.

import type { ConcatenateGradContext, ConcatenateGradResult } from '../generated/grad/concatenate.ts';
import { split } from '../generated/api/split.ts';

export function concatenateGradImpl({ xs, dy, axis }: ConcatenateGradContext): ConcatenateGradResult {
  // Cut before each input but the first: the running sum of the sizes along axis.
  const cuts: number[] = [];
  let at = 0;
  for (const x of xs.slice(0, -1)) cuts.push((at += x.shape[axis]!));
  return { xs: split(dy, cuts, axis) };
}
