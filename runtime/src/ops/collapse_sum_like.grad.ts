// Hand-written gradient of raf.op.collapse_sum_like (specs/reduce/collapse_sum_like.yaml): dy broadcast back to x's
// shape; like only gives the shape, so it gets no gradient.

import type { CollapseSumLikeGradContext, CollapseSumLikeGradResult } from '../generated/grad/collapse_sum_like.ts';
import { add } from '../generated/api/add.ts';
import { zerosLike } from '../generated/api/zeros_like.ts';

export function collapseSumLikeGradImpl({ x, like, dy }: CollapseSumLikeGradContext): CollapseSumLikeGradResult {
  return { x: add(zerosLike(x), dy), like: null };
}
