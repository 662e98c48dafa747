// CPU kernel of raf.op.cumprod (specs/tensor/cumprod.yaml).

import type { CumprodKernel } from '../../../generated/bridge/cumprod.ts';
import { scan } from '../scan.ts';

export const cumprodCpu: CumprodKernel = ({ x }, { axis, exclusive }, out) =>
  scan(x, axis, out, 1, (a, v) => a * v, exclusive);
