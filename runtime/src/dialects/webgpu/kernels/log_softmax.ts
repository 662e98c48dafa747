// WebGPU kernel of raf.op.log_softmax (specs/nn/log_softmax.yaml): x - max - log(sum(exp(x - max))), never log of a rounded-to-0 softmax.

import type { LogSoftmaxKernel } from '../../../generated/bridge/log_softmax.ts';
import { axisRowBuilder } from '../axis.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const logSoftmaxWebgpu: WebGpuBuilder<LogSoftmaxKernel> = axisRowBuilder<LogSoftmaxKernel>({
  op: 'log_softmax',
  inputs: ['x'],
  folds: [
    { name: 'm', fold: 'max', term: 'in_x[at]' },
    { name: 's', fold: 'sum', term: 'exp(in_x[at] - m)' },
  ],
  between: 'let shift = m + log(s);',
  value: 'in_x[at] - shift',
});
