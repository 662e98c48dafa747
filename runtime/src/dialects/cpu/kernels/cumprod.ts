// CPU kernel of raf.op.cumprod (specs/tensor/cumprod.yaml). A fixed-width integer result multiplies with Math.imul,
// exact modulo 2^32 however large the running product grows (see prod.ts).

import type { CumprodKernel } from '../../../generated/bridge/cumprod.ts';
import { isInteger, isWide } from '../../../dtype.ts';
import { scan } from '../scan.ts';

const times = (a: number, v: number) => a * v;

export const cumprodCpu: CumprodKernel = ({ x }, { axis, exclusive }, out) =>
  scan(x, axis, out, 1, isInteger(out.dtype) && !isWide(out.dtype) ? Math.imul : times, exclusive);
