// CPU kernel of raf.op.einsum (specs/linalg/einsum.yaml): for each output element, the sum over the summed labels of
// the inputs' product, accumulated in float64.

import type { EinsumKernel } from '../../../generated/bridge/einsum.ts';
import { sizeOf } from '../../../shape.ts';
import { einsumPlan } from '../../../ops/einsum.rule.ts';
import { allocOut, finish } from '../support.ts';

export const einsumCpu: EinsumKernel = ({ xs }, { equation }, out) => {
  const y = allocOut(out);
  const ys = y.dataSync();
  const plan = einsumPlan(
    equation,
    xs.map((x) => x.shape),
  );
  const data = xs.map((x) => x.dataSync());
  const { sizes, strides, outRank } = plan;
  const nLabels = sizes.length;
  const inner = sizeOf(sizes.slice(outRank));
  const coord = new Array<number>(nLabels).fill(0);
  const offs = new Array<number>(xs.length).fill(0);
  for (let o = 0; o < ys.length; o++) {
    // The output coordinate, from o; the summed ones start at 0.
    let rem = o;
    for (let d = outRank - 1; d >= 0; d--) {
      coord[d] = rem % sizes[d]!;
      rem = Math.floor(rem / sizes[d]!);
    }
    for (let d = outRank; d < nLabels; d++) coord[d] = 0;
    let acc = 0;
    for (let t = 0; t < inner; t++) {
      for (let k = 0; k < xs.length; k++) {
        let off = 0;
        const st = strides[k]!;
        for (let d = 0; d < nLabels; d++) off += coord[d]! * st[d]!;
        offs[k] = off;
      }
      let p = 1;
      for (let k = 0; k < xs.length; k++) p *= data[k]![offs[k]!]!;
      acc += p;
      for (let d = nLabels - 1; d >= outRank; d--) {
        if (++coord[d]! < sizes[d]!) break;
        coord[d] = 0;
      }
    }
    ys[o] = acc;
  }
  return finish(y);
};
