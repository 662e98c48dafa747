// WebGPU kernel of raf.op.softmax (specs/nn/softmax.yaml): one invocation per row, max-shifted so exp cannot overflow.

import type { SoftmaxKernel } from '../../../generated/bridge/softmax.ts';
import { axisRowBuilder } from '../axis.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const softmaxWebgpu: WebGpuBuilder<SoftmaxKernel> = axisRowBuilder<SoftmaxKernel>({
  op: 'softmax',
  inputs: ['x'],
  body: `
  var m = in_x[base];
  for (var k = 1u; k < len; k++) { m = max(m, in_x[base + k * inner]); }
  var s = 0.0;
  for (var k = 0u; k < len; k++) { s += exp(in_x[base + k * inner] - m); }
  for (var k = 0u; k < len; k++) { let at = base + k * inner; out[at] = exp(in_x[at] - m) / s; }`,
});
