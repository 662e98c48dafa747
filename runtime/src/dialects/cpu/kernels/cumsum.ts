// CPU kernel of raf.op.cumsum (specs/tensor/cumsum.yaml).

import type { CumsumKernel } from '../../../generated/bridge/cumsum.ts';
import { scan } from '../scan.ts';

export const cumsumCpu: CumsumKernel = ({ x }, { axis, exclusive }, out) =>
  scan(x, axis, out, 0, (a, v) => a + v, exclusive);
