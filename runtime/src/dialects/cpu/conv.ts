// Direct (loop) 2-D convolution for CPU kernels: one visitor walks every (output, input, weight) triple,
// so conv2d, conv2d_dx and conv2d_dw share the index arithmetic and differ only in what they accumulate.

import type { Window2d } from '../../ops/window.ts';

export interface ConvDims {
  readonly n: number;
  readonly c: number;
  readonly h: number;
  readonly w: number;
  readonly o: number;
  readonly groups: number;
}

/**
 * Calls visit(outIndex, inIndex, weightIndex) for every tap that lands inside the input; padded taps
 * are skipped, which is the same as reading zeros.
 */
export function forEachTap(d: ConvDims, g: Window2d, visit: (yi: number, xi: number, wi: number) => void): void {
  const cg = d.c / d.groups;
  const og = d.o / d.groups;
  for (let n = 0; n < d.n; n++) {
    for (let o = 0; o < d.o; o++) {
      const group = Math.floor(o / og);
      for (let oy = 0; oy < g.oh; oy++) {
        for (let ox = 0; ox < g.ow; ox++) {
          const yi = ((n * d.o + o) * g.oh + oy) * g.ow + ox;
          for (let ci = 0; ci < cg; ci++) {
            const c = group * cg + ci;
            for (let ky = 0; ky < g.kh; ky++) {
              const iy = oy * g.sh - g.padTop + ky * g.dh;
              if (iy < 0 || iy >= d.h) continue;
              for (let kx = 0; kx < g.kw; kx++) {
                const ix = ox * g.sw - g.padLeft + kx * g.dw;
                if (ix < 0 || ix >= d.w) continue;
                visit(yi, ((n * d.c + c) * d.h + iy) * d.w + ix, ((o * cg + ci) * g.kh + ky) * g.kw + kx);
              }
            }
          }
        }
      }
    }
  }
}

export function convDims(x: readonly number[], w: readonly number[], groups: number): ConvDims {
  return { n: x[0]!, c: x[1]!, h: x[2]!, w: x[3]!, o: w[0]!, groups };
}
