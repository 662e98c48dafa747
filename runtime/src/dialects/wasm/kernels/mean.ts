// Wasm kernel of raf.op.mean (specs/reduce/mean.yaml): the reduction passes of sum.ts, the sum divided once by the count.

import type { MeanKernel } from '../../../generated/bridge/mean.ts';
import { Fold, reduceWasm } from './sum.ts';

export const meanWasm: MeanKernel = ({ x }, { axis }, out) => reduceWasm(x, axis, out, Fold.Sum, true);
