// Hand-written gradient of raf.op.cast (specs/tensor/cast.yaml): dy cast back to x's dtype.

import { isFloat } from '../dtype.ts';
import type { CastGradContext, CastGradResult } from '../generated/grad/cast.ts';
import { cast } from '../generated/api/cast.ts';

export function castGradImpl({ x, dy, dtype }: CastGradContext): CastGradResult {
  // An integer or bool result is piecewise constant in x: its derivative is zero almost everywhere.
  if (!isFloat(dtype) || !isFloat(x.dtype)) return { x: null };
  return { x: cast(dy, x.dtype) };
}
