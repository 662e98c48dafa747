// CPU kernel of raf.op.log_sum (specs/reduce/log_sum.yaml): log of a float64 sum (an empty sum's log is -inf).

import type { LogSumKernel } from '../../../generated/bridge/log_sum.ts';
import { foldReduce } from '../reduce.ts';

export const logSumCpu: LogSumKernel = ({ x }, { axis }, out) =>
  foldReduce(
    x,
    axis,
    out,
    0,
    (a, v) => a + v,
    (a) => Math.log(a),
  );
