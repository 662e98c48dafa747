// CPU kernel of raf.op.argmax (specs/reduce/argmax.yaml): the first maximum wins ties (the last with
// select_last_index), and a NaN wins over numbers (NumPy; the first NaN, or the last with select_last_index).

import type { ArgmaxKernel } from '../../../generated/bridge/argmax.ts';
import { argReduce } from '../reduce.ts';

export const argmaxCpu: ArgmaxKernel = ({ x }, { axis, select_last_index }, out) =>
  argReduce(
    x,
    axis,
    out,
    select_last_index
      ? (v, best) => v !== v || (best === best && v >= best)
      : (v, best) => v > best || (v !== v && best === best),
  );
