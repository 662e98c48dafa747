// WebGPU kernel of raf.op.softmax_dx (specs/nn/softmax_dx.yaml): dx = y * (dy - sum(dy * y)) per row.

import type { SoftmaxDxKernel } from '../../../generated/bridge/softmax_dx.ts';
import { axisRowBuilder } from '../axis.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const softmaxDxWebgpu: WebGpuBuilder<SoftmaxDxKernel> = axisRowBuilder<SoftmaxDxKernel>({
  op: 'softmax_dx',
  inputs: ['y', 'dy'],
  folds: [{ name: 's', fold: 'sum', term: 'in_dy[at] * in_y[at]' }],
  value: 'in_y[at] * (in_dy[at] - s)',
});
