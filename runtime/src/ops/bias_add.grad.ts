// Hand-written gradient of raf.op.bias_add (specs/nn/bias_add.yaml): x gets dy; b gets dy summed over every other axis.

import type { BiasAddGradContext, BiasAddGradResult } from '../generated/grad/bias_add.ts';
import { sum } from '../generated/api/sum.ts';
import { normalizeAxis } from '../shape.ts';

export function biasAddGradImpl({ x, b, dy, axis }: BiasAddGradContext): BiasAddGradResult {
  const n = dy.shape.length;
  const a = normalizeAxis(axis, n);
  const others = Array.from({ length: n }, (_, i) => i).filter((i) => i !== a);
  return { x: dy, b: others.length ? sum(dy, others, false) : dy };
}
