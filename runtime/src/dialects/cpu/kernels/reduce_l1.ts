// CPU kernel of raf.op.reduce_l1 (specs/reduce/reduce_l1.yaml): sums |x| in float64; an integer output truncates.

import type { ReduceL1Kernel } from '../../../generated/bridge/reduce_l1.ts';
import { foldReduce } from '../reduce.ts';

export const reduceL1Cpu: ReduceL1Kernel = ({ x }, { axis }, out) =>
  foldReduce(x, axis, out, 0, (a, v) => a + Math.abs(v));
