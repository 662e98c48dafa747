// Hand-written gradient of raf.op.range (specs/tensor/range.yaml): y[i] = start + i · delta, so start gets the sum of dy
// and delta the sum of i · dy; limit only decides the length, a step function of it, so it gets zero.

import type { RangeGradContext, RangeGradResult } from '../generated/grad/range.ts';
import { multiply } from '../generated/api/multiply.ts';
import { sum } from '../generated/api/sum.ts';
import { placeOn, tensor } from '../tensor.ts';

export function rangeGradImpl({ start: _start, limit, delta: _delta, dy }: RangeGradContext): RangeGradResult {
  const n = dy.shape[0]!;
  const i = placeOn(
    tensor(
      Array.from({ length: n }, (_, k) => k),
      { dtype: dy.dtype, shape: [n] },
    ),
    dy.device,
  );
  return { start: sum(dy), limit: multiply(sum(dy), 0), delta: sum(multiply(dy, i)) };
}
