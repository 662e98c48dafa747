// CPU kernel of raf.op.matmul (specs/linalg/matmul.yaml), on the shared matrix product.

import type { MatmulKernel } from '../../../generated/bridge/matmul.ts';
import { matrixProduct } from '../matmul.ts';

export const matmulCpu: MatmulKernel = ({ a, b }, _attrs, out) => matrixProduct(a, b, out, false, false);
