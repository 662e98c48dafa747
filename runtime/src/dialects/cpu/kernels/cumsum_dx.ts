// CPU kernel of raf.op.cumsum_dx (specs/tensor/cumsum_dx.yaml): the reverse scan of dy, laid out like x.

import type { CumsumDxKernel } from '../../../generated/bridge/cumsum_dx.ts';
import { scan } from '../scan.ts';

// With axis null dy is flat while x is not; both are row-major, so scanning dy's flat order and
// writing into x's shape is the reshape the forward flattening implies.
export const cumsumDxCpu: CumsumDxKernel = ({ dy }, { axis, exclusive }, out) =>
  scan(dy, axis, out, 0, (a, v) => a + v, exclusive, true);
