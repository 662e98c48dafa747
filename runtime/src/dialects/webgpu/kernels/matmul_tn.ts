// WebGPU kernel of raf.op.matmul_tn (specs/linalg/matmul_tn.yaml): aᵀ @ b, the transpose read through strides.

import type { MatmulTnKernel } from '../../../generated/bridge/matmul_tn.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { matrixProductBuilder } from '../matrix-product.ts';

export const matmulTnWebgpu: WebGpuBuilder<MatmulTnKernel> = matrixProductBuilder(true, false);
