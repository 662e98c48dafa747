// The small CNN of scripts/train-reference/cnn_images.py, written with raf-op's ops: conv2d 3x3 (1 -> 4, padding 1) +
// bias, relu, max_pool2d 2x2 stride 2, conv2d 3x3 (4 -> 8) + bias, relu, flatten, dense 32 -> 4, mean softmax
// cross-entropy against one-hot labels. Data: the fixture's generated 8x8 images (pixel = stored integer / 8).

import { ops, tensor, type DType, type Tensor } from '../../runtime/src/index.ts';
import { readFileSync } from 'node:fs';

export type Params = Record<string, Tensor>;

interface Run {
  optimizer: 'sgd' | 'adam';
  config: Record<string, number | boolean>;
  losses: number[];
  final_loss_all_data: number;
  final: Record<string, number[]>;
}
/** test/fixtures/train/cnn-images.json, written by scripts/train-reference/cnn_images.py. */
export const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/train/cnn-images.json', import.meta.url), 'utf8'),
) as {
  images: number[][];
  labels: number[];
  classes: string[];
  batches: number[][];
  init: Record<string, { shape: number[]; data: number[] }>;
  runs: Record<string, Run>;
};

/** The fixture's initial weights as tensors of `dtype`. */
export function initParams(dtype: DType): Params {
  const out: Params = {};
  for (const [name, { shape, data }] of Object.entries(fixture.init)) out[name] = tensor(data, { dtype, shape });
  return out;
}

/** Images idx as x [n, 1, 8, 8] (pixel = value / 8) and one-hot labels y [n, classes] of `dtype`. */
export function images(idx: readonly number[], dtype: DType): { x: Tensor; y: Tensor } {
  const k = fixture.classes.length;
  const px = fixture.images[0]!.length;
  const side = Math.sqrt(px);
  return {
    x: tensor(
      idx.flatMap((i) => fixture.images[i]!.map((v) => v / 8)),
      { dtype, shape: [idx.length, 1, side, side] },
    ),
    y: tensor(
      idx.flatMap((i) => Array.from({ length: k }, (_, c) => (c === fixture.labels[i] ? 1 : 0))),
      { dtype, shape: [idx.length, k] },
    ),
  };
}

/** The batch of step k (0-based). */
export function batch(k: number, dtype: DType): { x: Tensor; y: Tensor } {
  return images(fixture.batches[k]!, dtype);
}

/** The mean cross-entropy of the CNN with parameters p on a batch. */
export function cnnLoss(p: Params, x: Tensor, y: Tensor): Tensor {
  // The biases as [C, 1, 1] broadcast over [N, C, H, W] (add has a kernel on every dialect, bias_add not on WebGPU).
  const h1 = ops.relu(ops.add(ops.conv2d(x, p.c1w!, [1, 1], [1, 1, 1, 1]), ops.reshape(p.c1b!, [-1, 1, 1])));
  const m1 = ops.maxPool2d(h1, [2, 2], [2, 2]);
  const h2 = ops.relu(ops.add(ops.conv2d(m1, p.c2w!), ops.reshape(p.c2b!, [-1, 1, 1])));
  const f = ops.reshape(h2, [x.shape[0]!, -1]);
  const logp = ops.logSoftmax(ops.dense(f, p.fw!, p.fb!), -1);
  return ops.negative(ops.mean(ops.sum(ops.multiply(y, logp), [1])));
}

/** The largest |a - b| / max(|b|, tiny) over two lists of the same length. */
export function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`maxRel: lengths ${a.length} and ${b.length}`);
  let worst = 0;
  for (let i = 0; i < b.length; i++)
    worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(Math.abs(b[i]!), 1e-12));
  return worst;
}
