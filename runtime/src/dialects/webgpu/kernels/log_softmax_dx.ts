// WebGPU kernel of raf.op.log_softmax_dx (specs/nn/log_softmax_dx.yaml): dx = dy - exp(y) * sum(dy) per row.

import type { LogSoftmaxDxKernel } from '../../../generated/bridge/log_softmax_dx.ts';
import { axisRowBuilder } from '../axis.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const logSoftmaxDxWebgpu: WebGpuBuilder<LogSoftmaxDxKernel> = axisRowBuilder<LogSoftmaxDxKernel>({
  op: 'log_softmax_dx',
  inputs: ['y', 'dy'],
  folds: [{ name: 's', fold: 'sum', term: 'in_dy[at]' }],
  value: 'in_dy[at] - exp(in_y[at]) * s',
});
