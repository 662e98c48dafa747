// CPU kernel of raf.op.argmax (specs/reduce/argmax.yaml): the first maximum wins ties, the first NaN wins over numbers (NumPy).

import type { ArgmaxKernel } from '../../../generated/bridge/argmax.ts';
import { argReduce } from '../reduce.ts';

export const argmaxCpu: ArgmaxKernel = ({ x }, { axis }, out) =>
  argReduce(x, axis, out, (v, best) => v > best || (v !== v && best === best));
