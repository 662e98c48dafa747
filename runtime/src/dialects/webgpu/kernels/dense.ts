// WebGPU kernel of raf.op.dense (specs/linalg/dense.yaml): the shared tiled matrix product reading w transposed, bias added in its epilogue.

import type { DenseKernel } from '../../../generated/bridge/dense.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { denseBuilder } from '../matrix-product.ts';

export const denseWebgpu: WebGpuBuilder<DenseKernel> = denseBuilder;
