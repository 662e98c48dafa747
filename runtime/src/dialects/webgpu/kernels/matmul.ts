// WebGPU kernel of raf.op.matmul (specs/linalg/matmul.yaml), on the shared tiled matrix product.

import type { MatmulKernel } from '../../../generated/bridge/matmul.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { matrixProductBuilder } from '../matrix-product.ts';

export const matmulWebgpu: WebGpuBuilder<MatmulKernel> = matrixProductBuilder(false, false);
