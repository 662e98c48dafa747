// CPU kernel of raf.op.batch_matmul (specs/linalg/batch_matmul.yaml): the shared batched matrix product.

import type { BatchMatmulKernel } from '../../../generated/bridge/batch_matmul.ts';
import { matrixProduct } from '../matmul.ts';

export const batchMatmulCpu: BatchMatmulKernel = ({ a, b }, _attrs, out) =>
  matrixProduct(a, b, out, false, false, 'batch_matmul');
