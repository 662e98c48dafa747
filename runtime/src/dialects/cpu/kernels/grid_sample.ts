// CPU kernel of raf.op.grid_sample (specs/nn/grid_sample.yaml), in float64, following ONNX's reference: coordinates
// denormalized per align_corners, rounded half to even for nearest, moved inside the borders for border / reflection
// padding, then each pixel read through the padding rule (zeros outside, clamped, or reflected index).

import type { GridSampleKernel } from '../../../generated/bridge/grid_sample.ts';
import { allocOut, finish } from '../support.ts';

const reflect = (x: number, lo: number, hi: number): number => {
  const rng = hi - lo;
  if (x < lo) {
    const dx = lo - x;
    const n = Math.trunc(dx / rng);
    const r = dx - n * rng;
    return n % 2 === 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const dx = x - hi;
    const n = Math.trunc(dx / rng);
    const r = dx - n * rng;
    return n % 2 === 0 ? hi - r : lo + r;
  }
  return x;
};

/** Round half to even, as NumPy's rint. */
const rint = (v: number): number => {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
};

function cubicCoeffs(t: number): [number, number, number, number] {
  const a = -0.75;
  const c0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  const c1 = ((a + 2) * t - (a + 3)) * t * t + 1;
  const u = 1 - t;
  const c2 = ((a + 2) * u - (a + 3)) * u * u + 1;
  const c3 = 1 - c0 - c1 - c2;
  return [c0, c1, c2, c3];
}

export const gridSampleCpu: GridSampleKernel = ({ x, grid }, { mode, padding_mode, align_corners }, out) => {
  const y = allocOut(out);
  const rank = x.shape.length - 2;
  const [N, C] = [x.shape[0]!, x.shape[1]!];
  const dims = x.shape.slice(2);
  const plane = dims.reduce((p, d) => p * d, 1);
  const outDims = grid.shape.slice(1, rank + 1);
  const outPlane = outDims.reduce((p, d) => p * d, 1);
  const xv = x.dataSync();
  const gv = grid.dataSync();
  const yv = y.dataSync();
  const kind = mode === 'linear' || mode === 'bilinear' ? 'linear' : mode === 'nearest' ? 'nearest' : 'cubic';
  const lo = dims.map((d) => (align_corners ? 0 : -0.5));
  const hi = dims.map((d) => (align_corners ? d - 1 : d - 0.5));
  const strides = dims.map((_, i) => dims.slice(i + 1).reduce((p, d) => p * d, 1));
  // The in-plane offset of an integer pixel index per axis after the padding rule, or -1 for a zero.
  const index = (ix: readonly number[]): number => {
    let off = 0;
    for (let i = 0; i < rank; i++) {
      let v = ix[i]!;
      const d = dims[i]!;
      if (padding_mode === 'zeros') {
        if (v < 0 || v >= d) return -1;
      } else if (padding_mode === 'border') v = Math.min(d - 1, Math.max(0, v));
      else v = Math.trunc(reflect(v, lo[i]!, hi[i]!));
      off += v * strides[i]!;
    }
    return off;
  };
  const coord = new Array<number>(rank);
  const ix = new Array<number>(rank);
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < outPlane; o++) {
      const g = (n * outPlane + o) * rank;
      for (let i = 0; i < rank; i++) {
        // grid's last axis is (x, y[, z]): the innermost spatial axis first.
        const v = gv[g + rank - 1 - i]!;
        const d = dims[i]!;
        let c = align_corners ? ((v + 1) / 2) * (d - 1) : ((v + 1) * d - 1) / 2;
        if (kind === 'nearest') c = rint(c);
        if (c < lo[i]! || c > hi[i]!) {
          // Cubic keeps its coordinate under border padding (the 4x4 taps are each clamped), as onnxruntime does.
          if (padding_mode === 'border') c = kind === 'cubic' ? c : Math.min(d - 1, Math.max(0, c));
          else if (padding_mode === 'reflection') c = reflect(c, lo[i]!, hi[i]!);
        }
        coord[i] = c;
      }
      for (let ch = 0; ch < C; ch++) {
        const base = (n * C + ch) * plane;
        const at = (offset: number) => (offset < 0 ? 0 : xv[base + offset]!);
        let val = 0;
        if (kind === 'nearest') {
          for (let i = 0; i < rank; i++) ix[i] = Math.trunc(coord[i]!);
          val = at(index(ix));
        } else if (kind === 'linear') {
          const corners = 1 << rank;
          for (let k = 0; k < corners; k++) {
            let w = 1;
            for (let i = 0; i < rank; i++) {
              const f = Math.floor(coord[i]!);
              const up = (k >> (rank - 1 - i)) & 1;
              ix[i] = f + up;
              const t = coord[i]! - f;
              w *= up ? t : 1 - t;
            }
            if (w !== 0) val += w * at(index(ix));
          }
        } else {
          const [fy, fx] = [Math.floor(coord[0]!), Math.floor(coord[1]!)];
          const cy = cubicCoeffs(coord[0]! - fy);
          const cx = cubicCoeffs(coord[1]! - fx);
          for (let a = 0; a < 4; a++) {
            let row = 0;
            for (let b = 0; b < 4; b++) {
              ix[0] = fy - 1 + a;
              ix[1] = fx - 1 + b;
              row += cx[b]! * at(index(ix));
            }
            val += cy[a]! * row;
          }
        }
        yv[(n * C + ch) * outPlane + o] = val;
      }
    }
  }
  return finish(y);
};
