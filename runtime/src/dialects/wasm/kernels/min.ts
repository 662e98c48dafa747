// Wasm kernel of raf.op.min (specs/reduce/min.yaml): the reduction passes of sum.ts with f32x4.min (NaN propagates).

import type { MinKernel } from '../../../generated/bridge/min.ts';
import { Fold, reduceWasm } from './sum.ts';

export const minWasm: MinKernel = ({ x }, { axis }, out) => reduceWasm(x, axis, out, Fold.Min);
