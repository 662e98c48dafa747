// CPU kernel of raf.op.col2im (specs/tensor/col2im.yaml): every column (block position) spreads its C · prod(block)
// values over the image, adding where blocks overlap; values falling in the padding are dropped. Sums in float64.

import type { Col2imKernel } from '../../../generated/bridge/col2im.ts';
import { col2imGeometry } from '../../../ops/col2im.rule.ts';
import { sizeOf, stridesOf } from '../../../shape.ts';
import { allocOut, finish } from '../support.ts';

export const col2imCpu: Col2imKernel = ({ x }, { image_shape, block_shape, dilations, pads, strides }, out) => {
  const g = col2imGeometry(image_shape, block_shape, dilations, pads, strides);
  const y = allocOut(out);
  const xs = x.dataSync();
  const n = image_shape.length;
  const [N, CB, L] = x.shape as [number, number, number];
  const block = sizeOf(block_shape);
  const C = CB / block;
  const image = sizeOf(image_shape);
  const imageStrides = stridesOf(image_shape);
  const acc = new Float64Array(y.size);
  const b = new Array<number>(n).fill(0);
  const p = new Array<number>(n).fill(0);
  for (let bi = 0; bi < block; bi++) {
    // b: this element's position within the block; p: the block's position in the image.
    let rem = bi;
    for (let d = n - 1; d >= 0; d--) {
      b[d] = rem % block_shape[d]!;
      rem = Math.floor(rem / block_shape[d]!);
    }
    for (let l = 0; l < L; l++) {
      rem = l;
      for (let d = n - 1; d >= 0; d--) {
        p[d] = rem % g.positions[d]!;
        rem = Math.floor(rem / g.positions[d]!);
      }
      let off = 0;
      let inside = true;
      for (let d = 0; d < n && inside; d++) {
        const at = p[d]! * g.strides[d]! - g.begins[d]! + b[d]! * g.dilations[d]!;
        if (at < 0 || at >= image_shape[d]!) inside = false;
        else off += at * imageStrides[d]!;
      }
      if (!inside) continue;
      for (let nb = 0; nb < N; nb++)
        for (let c = 0; c < C; c++) acc[(nb * C + c) * image + off]! += xs[(nb * CB + c * block + bi) * L + l]!;
    }
  }
  y.dataSync().set(acc);
  return finish(y);
};
