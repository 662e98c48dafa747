// CPU kernel of raf.op.resize (specs/nn/resize.yaml): one pass per resized axis, each output element the weighted sum
// of the input elements its taps name (resizePlan), accumulated in float64; tf_crop_and_resize's outside rows take
// extrapolation_value.

import type { ResizeKernel } from '../../../generated/bridge/resize.ts';
import { resizePlan } from '../../../ops/resize.rule.ts';
import { sizeOf } from '../../../shape.ts';
import { allocOut, finish } from '../support.ts';

export const resizeCpu: ResizeKernel = ({ x }, attrs, out) => {
  const plan = resizePlan({ x, ...attrs });
  let data: ArrayLike<number> = x.dataSync();
  const shape = [...x.shape];
  for (const { axis, inLen, outLen, taps, outside } of plan.axes) {
    const outer = sizeOf(shape.slice(0, axis));
    const inner = sizeOf(shape.slice(axis + 1));
    const next = new Float64Array(outer * outLen * inner);
    for (let a = 0; a < outer; a++)
      for (let o = 0; o < outLen; o++) {
        const row = (a * outLen + o) * inner;
        if (outside?.[o]) {
          next.fill(attrs.extrapolation_value, row, row + inner);
          continue;
        }
        for (const [i, w] of taps[o]!) {
          const src = (a * inLen + i) * inner;
          for (let k = 0; k < inner; k++) next[row + k]! += w * data[src + k]!;
        }
      }
    data = next;
    shape[axis] = outLen;
  }
  const y = allocOut(out);
  y.dataSync().set(data as never);
  return finish(y);
};
