// CPU kernel of raf.op.roi_align (specs/nn/roi_align.yaml), in float64: the bilinear samples of each bin as
// onnxruntime takes them (a sample beyond one pixel outside the image counts as 0; coordinates below 0 clamp to 0,
// past the last pixel to it).

import type { RoiAlignKernel } from '../../../generated/bridge/roi_align.ts';
import { OpError } from '../../../errors.ts';
import { allocOut, finish } from '../support.ts';

export const roiAlignCpu: RoiAlignKernel = ({ x, rois, batch_indices }, attrs, out) => {
  const { output_height: PH, output_width: PW, sampling_ratio, spatial_scale, mode } = attrs;
  const halfPixel = attrs.coordinate_transformation_mode === 'half_pixel';
  const y = allocOut(out);
  const [N, C, H, W] = x.shape as [number, number, number, number];
  const R = rois.shape[0]!;
  const [xv, rv, bv, yv] = [x.dataSync(), rois.dataSync(), batch_indices.dataSync(), y.dataSync()];
  const offset = halfPixel ? 0.5 : 0;
  for (let r = 0; r < R; r++) {
    const n = Number(bv[r]);
    if (!(Number.isInteger(n) && n >= 0 && n < N))
      throw new OpError('roi_align', `batch index ${n} of region ${r} is outside [0, ${N})`, 'batch_indices');
    const x0 = rv[r * 4]! * spatial_scale - offset;
    const y0 = rv[r * 4 + 1]! * spatial_scale - offset;
    let rw = rv[r * 4 + 2]! * spatial_scale - offset - x0;
    let rh = rv[r * 4 + 3]! * spatial_scale - offset - y0;
    if (!halfPixel) {
      rw = Math.max(rw, 1);
      rh = Math.max(rh, 1);
    }
    const [bh, bw] = [rh / PH, rw / PW];
    const gh = sampling_ratio > 0 ? sampling_ratio : Math.ceil(rh / PH);
    const gw = sampling_ratio > 0 ? sampling_ratio : Math.ceil(rw / PW);
    if (gh < 0 || gw < 0)
      throw new OpError(
        'roi_align',
        `region ${r} has a negative size (${rw} x ${rh} after scaling); adaptive sampling (sampling_ratio 0) needs x1 <= x2, y1 <= y2`,
        'rois',
      );
    const count = Math.max(gh * gw, 1);
    for (let c = 0; c < C; c++) {
      const base = (n * C + c) * H * W;
      for (let ph = 0; ph < PH; ph++) {
        for (let pw = 0; pw < PW; pw++) {
          let acc = 0;
          let first = true;
          for (let iy = 0; iy < gh; iy++) {
            const sy = y0 + ph * bh + ((iy + 0.5) * bh) / gh;
            for (let ix = 0; ix < gw; ix++) {
              const sx = x0 + pw * bw + ((ix + 0.5) * bw) / gw;
              let terms = [0, 0, 0, 0];
              if (!(sy < -1 || sy > H || sx < -1 || sx > W)) {
                let yy = Math.max(sy, 0);
                let xx = Math.max(sx, 0);
                let yl = Math.trunc(yy);
                let xl = Math.trunc(xx);
                let yh: number;
                let xh: number;
                if (yl >= H - 1) {
                  yh = yl = H - 1;
                  yy = yl;
                } else yh = yl + 1;
                if (xl >= W - 1) {
                  xh = xl = W - 1;
                  xx = xl;
                } else xh = xl + 1;
                const [ly, lx] = [yy - yl, xx - xl];
                const [hy, hx] = [1 - ly, 1 - lx];
                terms = [
                  hy * hx * xv[base + yl * W + xl]!,
                  hy * lx * xv[base + yl * W + xh]!,
                  ly * hx * xv[base + yh * W + xl]!,
                  ly * lx * xv[base + yh * W + xh]!,
                ];
              }
              if (mode === 'avg') acc += terms[0]! + terms[1]! + terms[2]! + terms[3]!;
              else {
                const v = Math.max(terms[0]!, terms[1]!, terms[2]!, terms[3]!);
                acc = first ? v : Math.max(acc, v);
                first = false;
              }
            }
          }
          yv[((r * C + c) * PH + ph) * PW + pw] = mode === 'avg' ? acc / count : acc;
        }
      }
    }
  }
  return finish(y);
};
