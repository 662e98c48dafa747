// Hand-written gradient of raf.op.tile (specs/tensor/tile.yaml): each element of x receives the sum of dy over its
// copies, the sum over the repetition axes of dy viewed as [reps[0], x.shape[0], reps[1], x.shape[1], ...].

import type { TileGradContext, TileGradResult } from '../generated/grad/tile.ts';
import { reshape } from '../generated/api/reshape.ts';
import { sum } from '../generated/api/sum.ts';
import { tiledView } from './tile.rule.ts';

export function tileGradImpl({ x, dy, reps }: TileGradContext): TileGradResult {
  const view = reshape(dy, tiledView(x.shape, reps));
  const axes = reps.map((_, i) => 2 * i);
  return { x: reshape(sum(view, axes), x.shape) };
}
