// CPU kernel of raf.op.prod (specs/reduce/prod.yaml): multiplies in float64.

import type { ProdKernel } from '../../../generated/bridge/prod.ts';
import { foldReduce } from '../reduce.ts';

export const prodCpu: ProdKernel = ({ x }, { axis }, out) => foldReduce(x, axis, out, 1, (a, v) => a * v);
