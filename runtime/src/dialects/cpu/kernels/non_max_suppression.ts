// CPU kernel of raf.op.non_max_suppression (specs/nn/non_max_suppression.yaml): the rule's suppression, its rows
// written out as int64.

import type { NonMaxSuppressionKernel } from '../../../generated/bridge/non_max_suppression.ts';
import { nmsDims, nonMaxSuppression } from '../../../ops/non_max_suppression.rule.ts';
import { allocOut } from '../support.ts';

export const nonMaxSuppressionCpu: NonMaxSuppressionKernel = (
  { boxes, scores },
  { max_output_boxes_per_class, iou_threshold, score_threshold, center_point_box },
  out,
) => {
  const rows = nonMaxSuppression(
    boxes.dataSync() as ArrayLike<number>,
    scores.dataSync() as ArrayLike<number>,
    nmsDims(boxes.shape, scores.shape),
    { max_output_boxes_per_class, iou_threshold, score_threshold, center_point_box },
  );
  const y = allocOut(out);
  (y.dataSync() as Float64Array).set(rows);
  return y;
};
