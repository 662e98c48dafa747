// CPU kernel of raf.op.sum_square (specs/reduce/sum_square.yaml): a float64 sum of squares.

import type { SumSquareKernel } from '../../../generated/bridge/sum_square.ts';
import { foldReduce } from '../reduce.ts';

export const sumSquareCpu: SumSquareKernel = ({ x }, { axis }, out) => foldReduce(x, axis, out, 0, (a, v) => a + v * v);
