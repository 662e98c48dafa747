// CPU kernel of raf.op.argmin (specs/reduce/argmin.yaml): the first minimum wins ties, the first NaN wins over numbers (NumPy).

import type { ArgminKernel } from '../../../generated/bridge/argmin.ts';
import { argReduce } from '../reduce.ts';

export const argminCpu: ArgminKernel = ({ x }, { axis }, out) =>
  argReduce(x, axis, out, (v, best) => v < best || (v !== v && best === best));
