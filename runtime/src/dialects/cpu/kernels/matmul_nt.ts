// CPU kernel of raf.op.matmul_nt (specs/linalg/matmul_nt.yaml), on the shared matrix product.

import type { MatmulNtKernel } from '../../../generated/bridge/matmul_nt.ts';
import { matrixProduct } from '../matmul.ts';

export const matmulNtCpu: MatmulNtKernel = ({ a, b }, _attrs, out) =>
  matrixProduct(a, b, out, false, true, 'matmul_nt');
