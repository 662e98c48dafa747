// CPU kernel of raf.op.min (specs/reduce/min.yaml).

import type { MinKernel } from '../../../generated/bridge/min.ts';
import { foldReduce } from '../reduce.ts';

// NaN propagates (Math.min), as in NumPy and ONNX.
export const minCpu: MinKernel = ({ x }, { axis }, out) => foldReduce(x, axis, out, Infinity, Math.min);
