// fuseOps folds scalar scale-and-shift blocks around convolutions (PaddleOCR's learnable affine blocks): after a conv2d
// into its weights and bias, and before a conv2d with no padding into its weights and bias (Σ w per output channel).

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { execute, executeUnplanned, fuseEpilogues, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { expectClose } from '../support/reference.ts';

const values = (t: Tensor): number[] => Array.from(t.dataSync() as Float32Array);
const w1 = randomUniform([6, 3, 3, 3], { low: -1, high: 1, seed: 1 });
const b1 = randomUniform([6, 1, 1], { low: -1, high: 1, seed: 2 });
const w2 = randomUniform([5, 6, 1, 1], { low: -1, high: 1, seed: 3 });
const b2 = randomUniform([5, 1, 1], { low: -1, high: 1, seed: 4 });
const w3 = randomUniform([5, 1, 3, 3], { low: -1, high: 1, seed: 5 });
const b3 = randomUniform([5, 1, 1], { low: -1, high: 1, seed: 6 });

/** conv → ·0.7 + 0.2 → hardswish → ·1.3 − 0.4 → 1×1 conv (no padding) → ·0.5 + 0.1 → relu → ·2 + 1 → padded depthwise conv. */
const block = (x: Tensor): Tensor => {
  let y = ops.add(ops.conv2d(x, w1, [1, 1], [1, 1, 1, 1]), b1);
  y = ops.hardswish(ops.add(ops.multiply(y, 0.7), 0.2));
  y = ops.add(ops.multiply(1.3, y), -0.4);
  y = ops.add(ops.conv2d(y, w2), b2);
  y = ops.add(ops.multiply(y, 0.5), 0.1);
  y = ops.add(ops.multiply(ops.relu(y), 2), 1);
  return ops.add(ops.conv2d(y, w3, [1, 1], [1, 1, 1, 1], [1, 1], 5), b3);
};

describe('foldScalarAffine (in fuseOps)', () => {
  it('folds the scale and shift after a conv and before an unpadded one, and agrees with the calls as written', () => {
    const spec = { name: 'x', shape: [1, 3, 7, 9], dtype: 'float32' as const };
    const plain = trace(block, [spec]);
    const folded = fuseEpilogues(plain);
    const text = printGraph(folded);
    // Left: the ·2 + 1 before the padded depthwise conv (a padded tap reads 0, not the shift).
    expect(text.match(/raf\.op\.multiply/g)?.length).toBe(1);
    const x = randomUniform([1, 3, 7, 9], { low: -1, high: 1, seed: 7 });
    const want = values(executeUnplanned(plain, [x])[0]!);
    for (let run = 0; run < 2; run++) expectClose(values(execute(folded, [x])[0]!), want, 1e-4);
  });
});
