// Wasm kernel of raf.op.max (specs/reduce/max.yaml): the reduction passes of sum.ts with f32x4.max (NaN propagates).

import type { MaxKernel } from '../../../generated/bridge/max.ts';
import { Fold, reduceWasm } from './sum.ts';

export const maxWasm: MaxKernel = ({ x }, { axis }, out) => reduceWasm(x, axis, out, Fold.Max);
