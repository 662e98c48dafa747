// CPU kernel of raf.op.max (specs/reduce/max.yaml).

import type { MaxKernel } from '../../../generated/bridge/max.ts';
import { foldReduce } from '../reduce.ts';

// NaN propagates (Math.max), as in NumPy and ONNX.
export const maxCpu: MaxKernel = ({ x }, { axis }, out) => foldReduce(x, axis, out, -Infinity, Math.max);
