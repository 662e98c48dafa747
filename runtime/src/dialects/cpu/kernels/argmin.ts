// CPU kernel of raf.op.argmin (specs/reduce/argmin.yaml): the first minimum wins ties (the last with
// select_last_index), and a NaN wins over numbers (NumPy; the first NaN, or the last with select_last_index).

import type { ArgminKernel } from '../../../generated/bridge/argmin.ts';
import { argReduce } from '../reduce.ts';

export const argminCpu: ArgminKernel = ({ x }, { axis, select_last_index }, out) =>
  argReduce(
    x,
    axis,
    out,
    select_last_index
      ? (v, best) => v !== v || (best === best && v <= best)
      : (v, best) => v < best || (v !== v && best === best),
  );
