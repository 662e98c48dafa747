// CPU kernel of raf.op.mean (specs/reduce/mean.yaml): a float64 sum divided once by the element count.

import type { MeanKernel } from '../../../generated/bridge/mean.ts';
import { foldReduce } from '../reduce.ts';

export const meanCpu: MeanKernel = ({ x }, { axis }, out) =>
  foldReduce(
    x,
    axis,
    out,
    0,
    (a, v) => a + v,
    (a, n) => a / n,
  );
