// WebGPU kernel of raf.op.log_softmax (specs/nn/log_softmax.yaml): x - max - log(sum(exp(x - max))), never log of a rounded-to-0 softmax.

import type { LogSoftmaxKernel } from '../../../generated/bridge/log_softmax.ts';
import { axisRowBuilder } from '../axis.ts';
import type { WebGpuBuilder } from '../kernel.ts';

export const logSoftmaxWebgpu: WebGpuBuilder<LogSoftmaxKernel> = axisRowBuilder<LogSoftmaxKernel>({
  op: 'log_softmax',
  inputs: ['x'],
  body: `
  var m = in_x[base];
  for (var k = 1u; k < len; k++) { m = max(m, in_x[base + k * inner]); }
  var s = 0.0;
  for (var k = 0u; k < len; k++) { s += exp(in_x[base + k * inner] - m); }
  let shift = m + log(s);
  for (var k = 0u; k < len; k++) { let at = base + k * inner; out[at] = in_x[at] - shift; }`,
});
