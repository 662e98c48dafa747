// Hand-written shape rule of raf.op.non_max_suppression (specs/nn/non_max_suppression.yaml): the number of kept boxes
// comes from the values of boxes and scores (the type function reads them), so the rule runs the suppression itself;
// the CPU kernel runs the same `nonMaxSuppression` to fill the rows.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { NonMaxSuppressionArgs } from '../generated/schema/non_max_suppression.ts';

const OP = 'non_max_suppression';

export interface NmsAttrs {
  readonly max_output_boxes_per_class: number;
  readonly iou_threshold: number;
  readonly score_threshold: number | null;
  readonly center_point_box: number;
}

/** Checks boxes [batch, n, 4] and scores [batch, classes, n]; returns [batch, classes, n]. */
export function nmsDims(boxes: readonly number[], scores: readonly number[]): [number, number, number] {
  if (boxes.length !== 3 || boxes[2] !== 4)
    throw new OpError(OP, `needs boxes of shape [batch, boxes, 4], got ${formatShape(boxes)}`, 'boxes');
  if (scores.length !== 3 || scores[0] !== boxes[0] || scores[2] !== boxes[1])
    throw new OpError(
      OP,
      `needs scores of shape [batch, classes, boxes] = [${boxes[0]}, classes, ${boxes[1]}], got ${formatShape(scores)}`,
      'scores',
    );
  return [boxes[0]!, scores[1]!, boxes[1]!];
}

/**
 * The kept (batch, class, box) triples, in onnxruntime's order and float32 arithmetic: candidates above the score
 * threshold by descending score (ties: lower index first), each kept unless its IoU with a kept box exceeds the
 * threshold (boxes without area or not overlapping never suppress).
 */
export function nonMaxSuppression(
  boxes: ArrayLike<number>,
  scores: ArrayLike<number>,
  dims: readonly [number, number, number],
  a: NmsAttrs,
): number[] {
  const [batch, classes, n] = dims;
  const f = Math.fround;
  const limit = Math.max(0, a.max_output_boxes_per_class);
  const iouThreshold = f(a.iou_threshold);
  const scoreThreshold = a.score_threshold === null ? null : f(a.score_threshold);
  // Each box as [xmin, ymin, xmax, ymax].
  const corners = (b: number, i: number): [number, number, number, number] => {
    const o = (b * n + i) * 4;
    const [p0, p1, p2, p3] = [boxes[o]!, boxes[o + 1]!, boxes[o + 2]!, boxes[o + 3]!];
    if (a.center_point_box === 0) return [Math.min(p1, p3), Math.min(p0, p2), Math.max(p1, p3), Math.max(p0, p2)];
    const [hw, hh] = [f(p2 / 2), f(p3 / 2)];
    return [f(p0 - hw), f(p1 - hh), f(p0 + hw), f(p1 + hh)];
  };
  const suppresses = (p: readonly number[], q: readonly number[]): boolean => {
    const [x0, x1] = [Math.max(p[0]!, q[0]!), Math.min(p[2]!, q[2]!)];
    if (x1 <= x0) return false;
    const [y0, y1] = [Math.max(p[1]!, q[1]!), Math.min(p[3]!, q[3]!)];
    if (y1 <= y0) return false;
    const inter = f(f(x1 - x0) * f(y1 - y0));
    if (inter <= 0) return false;
    const area1 = f(f(p[2]! - p[0]!) * f(p[3]! - p[1]!));
    const area2 = f(f(q[2]! - q[0]!) * f(q[3]! - q[1]!));
    const union = f(f(area1 + area2) - inter);
    if (area1 <= 0 || area2 <= 0 || union <= 0) return false;
    return f(inter / union) > iouThreshold;
  };
  const rows: number[] = [];
  if (limit === 0) return rows;
  for (let b = 0; b < batch; b++) {
    const box = Array.from({ length: n }, (_, i) => corners(b, i));
    for (let c = 0; c < classes; c++) {
      const base = (b * classes + c) * n;
      const order: number[] = [];
      for (let i = 0; i < n; i++) {
        const s = scores[base + i]!;
        if (scoreThreshold === null || s > scoreThreshold) order.push(i);
      }
      order.sort((i, j) => scores[base + j]! - scores[base + i]! || i - j);
      const kept: number[] = [];
      for (const i of order) {
        if (kept.length >= limit) break;
        if (kept.some((k) => suppresses(box[i]!, box[k]!))) continue;
        kept.push(i);
        rows.push(b, c, i);
      }
    }
  }
  return rows;
}

/** The output type of raf.op.non_max_suppression: int64 [count, 3]. */
export function nonMaxSuppressionRule<T extends TensorType>(
  args: NonMaxSuppressionArgs<T>,
  values: { readonly boxes: readonly number[]; readonly scores: readonly number[] },
): TensorType {
  for (const [name, t] of [
    ['boxes', args.boxes],
    ['scores', args.scores],
  ] as const)
    if (t.dtype !== 'float32' && t.dtype !== 'float64')
      throw new OpError(OP, `needs float32 or float64 ${name}, got ${t.dtype}`, name);
  const dims = nmsDims(args.boxes.shape, args.scores.shape);
  return { shape: [nonMaxSuppression(values.boxes, values.scores, dims, args).length / 3, 3], dtype: 'int64' };
}
