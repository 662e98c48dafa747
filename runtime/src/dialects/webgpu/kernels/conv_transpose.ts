// WebGPU kernel of raf.op.conv_transpose (specs/nn/conv_transpose.yaml): one invocation per output element gathers the
// input positions whose taps reach it (conv2d's backward for x, so no atomics), plus the bias; 1-D runs as height 1.

import type { ConvTransposeKernel } from '../../../generated/bridge/conv_transpose.ts';
import { convTransposeGeometry } from '../../../ops/conv_transpose.rule.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { runWindow, sizeOfType, windowSource } from '../window.ts';

// The window is the forward conv's over the output: g.c, g.h, g.w are the output's, g.o is x's channels.
const body = (withBias: boolean) => `
  let ox = e % g.w;
  let oy = (e / g.w) % g.h;
  let c = (e / (g.w * g.h)) % g.c;
  let n = e / (g.w * g.h * g.c);
  let cg = g.c / g.groups;
  let og = g.o / g.groups;
  let ci = c % cg;
  let o0 = (c / cg) * og;
  var acc = ${withBias ? 'b[c]' : '0.0'};
  for (var ky = 0; ky < g.kh; ky++) {
    let iy = source_pos(oy, ky, g.pad_top, g.sh, g.dh, g.oh);
    if (iy < 0) { continue; }
    for (var kx = 0; kx < g.kw; kx++) {
      let ix = source_pos(ox, kx, g.pad_left, g.sw, g.dw, g.ow);
      if (ix < 0) { continue; }
      for (var o = o0; o < o0 + og; o++) {
        acc += x[((n * g.o + o) * g.oh + iy) * g.ow + ix] * wt[((o * cg + ci) * g.kh + ky) * g.kw + kx];
      }
    }
  }
  y[i] = acc;`;

const SOURCE = {
  bias: windowSource(['x', 'wt', 'b', 'y'], body(true)),
  plain: windowSource(['x', 'wt', 'y'], body(false)),
};

export const convTransposeWebgpu: WebGpuBuilder<ConvTransposeKernel> = (_attrs, out, { x, w, bias }) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, w, ...(bias ? [bias] : []))) return null;
  const which = bias ? 'bias' : 'plain';
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey(`conv_transpose_${which}`, 'f32'), () => SOURCE[which]);
  return ({ x, w, bias }, attrs, kout) => {
    const geo = convTransposeGeometry({ x, w, ...attrs });
    const win = { stride: geo.stride, padding: geo.padding, dilation: geo.dilation, groups: attrs.groups };
    const shape = { shape: geo.out4, dtype: kout.dtype };
    return runWindow(
      gpu,
      pipeline,
      'conv_transpose',
      shape,
      geo.w4,
      win,
      bias ? [x, w, bias] : [x, w],
      kout,
      sizeOfType(kout),
    );
  };
};
