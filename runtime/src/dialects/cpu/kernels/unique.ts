// CPU kernel of raf.op.unique (specs/tensor/unique.yaml): the distinct slices along axis (elements of the flattened x
// when axis is null) as uniqueOf finds them, copied out with their first indices, inverse indices and counts.

import type { UniqueKernel } from '../../../generated/bridge/unique.ts';
import { uniqueOf } from '../../../ops/unique.rule.ts';
import { aroundAxis, allocOut } from '../support.ts';

export const uniqueCpu: UniqueKernel = ({ x }, { axis, sorted }, outs) => {
  const xs = x.dataSync();
  const u = uniqueOf(xs, x.shape, axis, sorted);
  const [y, indices, inverse, counts] = outs.map(allocOut) as [
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
    ReturnType<typeof allocOut>,
  ];
  const ys = y.dataSync();
  const { outer, len, inner } = axis === null ? { outer: 1, len: xs.length, inner: 1 } : aroundAxis(x.shape, axis);
  const count = u.first.length;
  for (let o = 0; o < outer; o++)
    u.first.forEach((t, p) => {
      for (let i = 0; i < inner; i++) ys[(o * count + p) * inner + i] = xs[(o * len + t) * inner + i]!;
    });
  indices.dataSync().set(u.first);
  inverse.dataSync().set(u.inverse);
  counts.dataSync().set(u.counts);
  return [y, indices, inverse, counts];
};
