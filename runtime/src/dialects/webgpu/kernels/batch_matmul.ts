// WebGPU kernel of raf.op.batch_matmul (specs/linalg/batch_matmul.yaml), on the shared tiled matrix product.

import type { BatchMatmulKernel } from '../../../generated/bridge/batch_matmul.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { matrixProductBuilder } from '../matrix-product.ts';

export const batchMatmulWebgpu: WebGpuBuilder<BatchMatmulKernel> = matrixProductBuilder(false, false);
