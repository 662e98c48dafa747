// WebGPU kernel of raf.op.softmax (specs/nn/softmax.yaml): max-shifted so exp cannot overflow, a row per invocation or per workgroup (axis.ts).

import type { SoftmaxKernel } from '../../../generated/bridge/softmax.ts';
import { axisRowBuilder } from '../axis.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const softmaxWebgpu: WebGpuBuilder<SoftmaxKernel> = axisRowBuilder<SoftmaxKernel>({
  op: 'softmax',
  inputs: ['x'],
  folds: [
    { name: 'm', fold: 'max', term: 'in_x[at]' },
    { name: 's', fold: 'sum', term: 'exp(in_x[at] - m)' },
  ],
  value: 'exp(in_x[at] - m) / s',
});
