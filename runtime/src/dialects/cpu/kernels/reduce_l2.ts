// CPU kernel of raf.op.reduce_l2 (specs/reduce/reduce_l2.yaml): sqrt of a float64 sum of squares.

import type { ReduceL2Kernel } from '../../../generated/bridge/reduce_l2.ts';
import { foldReduce } from '../reduce.ts';

export const reduceL2Cpu: ReduceL2Kernel = ({ x }, { axis }, out) =>
  foldReduce(
    x,
    axis,
    out,
    0,
    (a, v) => a + v * v,
    (a) => Math.sqrt(a),
  );
