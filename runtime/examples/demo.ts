// The README's first command ends here: softmax forward and backward on the CPU, printed.

import { backward, ops, tensor } from '../src/index.ts';

const x = tensor(
  [
    [1, 2, 3],
    [1, 1, 1],
  ],
  { dtype: 'float64' },
).requireGrad();

const y = ops.softmax(x, -1);
// A weighted sum makes the gradient non-trivial: d/dx sum(softmax(x) * w).
const w = tensor(
  [
    [1, 0, -1],
    [0.5, 0.25, 0],
  ],
  { dtype: 'float64' },
);
// What the tape keeps for softmax's backward (it lets go of it once the backward has run).
const kept = Object.keys(y.node!.saved);
backward(ops.sum(ops.multiply(y, w)));

const fmt = (rows: unknown) =>
  (rows as number[][]).map((r) => r.map((v) => v.toFixed(6).padStart(10)).join(' ')).join('\n');
console.log(`x:\n${fmt(await x.toArray())}`);
console.log(`softmax(x, axis=-1):\n${fmt(await y.toArray())}`);
console.log(`d/dx sum(softmax(x) * w):\n${fmt(await x.grad!.toArray())}`);
console.log(`the backward kept only: ${kept.join(', ')} (softmax's spec saves y, not x)`);
