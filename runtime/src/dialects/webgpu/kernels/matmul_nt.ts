// WebGPU kernel of raf.op.matmul_nt (specs/linalg/matmul_nt.yaml): a @ bᵀ, the transpose read through strides.

import type { MatmulNtKernel } from '../../../generated/bridge/matmul_nt.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { matrixProductBuilder } from '../matrix-product.ts';

export const matmulNtWebgpu: WebGpuBuilder<MatmulNtKernel> = matrixProductBuilder(false, true);
