// CPU kernel of raf.op.matmul_tn (specs/linalg/matmul_tn.yaml), on the shared matrix product.

import type { MatmulTnKernel } from '../../../generated/bridge/matmul_tn.ts';
import { matrixProduct } from '../matmul.ts';

export const matmulTnCpu: MatmulTnKernel = ({ a, b }, _attrs, out) =>
  matrixProduct(a, b, out, true, false, 'matmul_tn');
