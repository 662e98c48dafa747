// Hand-written gradient of raf.op.transpose (specs/tensor/transpose.yaml): dy transposed by the inverse permutation.

import type { TransposeGradContext, TransposeGradResult } from '../generated/grad/transpose.ts';
import { transpose } from '../generated/api/transpose.ts';
import { permutation } from './transpose.rule.ts';

export function transposeGradImpl({ x, dy, axes }: TransposeGradContext): TransposeGradResult {
  const perm = permutation(axes, x.shape.length);
  const inverse = new Array<number>(perm.length);
  perm.forEach((p, i) => (inverse[p] = i));
  return { x: transpose(dy, inverse) };
}
