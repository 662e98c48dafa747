// CPU kernel of raf.op.deform_conv (specs/nn/deform_conv.yaml), in float64: for each output position and kernel tap,
// x is sampled bilinearly (corners outside x count as 0) at the tap's position plus its offset, times the tap's mask,
// and the samples are weighted by w within the channel group; bias is added last.

import type { DeformConvKernel } from '../../../generated/bridge/deform_conv.ts';
import { deformGeometry } from '../../../ops/deform_conv.rule.ts';
import { allocOut } from '../support.ts';

export const deformConvCpu: DeformConvKernel = ({ x, w, offset, bias, mask }, attrs, out) => {
  const { strides, pads, dilations, group, offset_group } = attrs;
  const { N, C, H, W, O, kH, kW, oH, oW } = deformGeometry(x.shape, w.shape, attrs);
  const xs = x.dataSync() as ArrayLike<number>;
  const ws = w.dataSync() as ArrayLike<number>;
  const os = offset.dataSync() as ArrayLike<number>;
  const ms = mask ? (mask.dataSync() as ArrayLike<number>) : null;
  const bs = bias ? (bias.dataSync() as ArrayLike<number>) : null;
  const y = allocOut(out);
  const ys = y.dataSync() as Float32Array | Float64Array;
  const taps = kH * kW;
  const [Cg, Og, Co] = [C / group, O / group, C / offset_group];
  const sample = (plane: number, h: number, v: number): number => {
    if (h <= -1 || h >= H || v <= -1 || v >= W) return 0;
    const [h0, w0] = [Math.floor(h), Math.floor(v)];
    const [lh, lw] = [h - h0, v - w0];
    const at = (i: number, j: number) => (i >= 0 && i < H && j >= 0 && j < W ? xs[plane + i * W + j]! : 0);
    return (
      (1 - lh) * (1 - lw) * at(h0, w0) +
      (1 - lh) * lw * at(h0, w0 + 1) +
      lh * (1 - lw) * at(h0 + 1, w0) +
      lh * lw * at(h0 + 1, w0 + 1)
    );
  };
  // cols[c][tap] for one output position: the masked samples.
  const cols = new Float64Array(C * taps);
  for (let n = 0; n < N; n++)
    for (let oh = 0; oh < oH; oh++)
      for (let ow = 0; ow < oW; ow++) {
        for (let c = 0; c < C; c++) {
          const og = Math.floor(c / Co);
          for (let i = 0; i < kH; i++)
            for (let j = 0; j < kW; j++) {
              const k = i * kW + j;
              const oc = ((n * offset_group + og) * 2 * taps + 2 * k) * oH * oW + oh * oW + ow;
              const dh = os[oc]!;
              const dw = os[oc + oH * oW]!;
              const h = oh * strides[0]! - pads[0]! + i * dilations[0]! + dh;
              const v = ow * strides[1]! - pads[1]! + j * dilations[1]! + dw;
              const m = ms ? ms[((n * offset_group + og) * taps + k) * oH * oW + oh * oW + ow]! : 1;
              cols[c * taps + k] = m * sample((n * C + c) * H * W, h, v);
            }
        }
        for (let o = 0; o < O; o++) {
          const g = Math.floor(o / Og);
          let acc = bs ? bs[o]! : 0;
          for (let cl = 0; cl < Cg; cl++) {
            const c = g * Cg + cl;
            for (let k = 0; k < taps; k++) acc += ws[(o * Cg + cl) * taps + k]! * cols[c * taps + k]!;
          }
          ys[((n * O + o) * oH + oh) * oW + ow] = acc;
        }
      }
  return y;
};
