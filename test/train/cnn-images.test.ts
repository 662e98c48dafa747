// Parity of training for a small CNN: the model of test/train/cnn-model.ts (conv2d, relu, max_pool2d, conv2d, relu,
// dense, softmax cross-entropy) trained 40 steps on generated 8x8 images with SGD (momentum, weight decay) and Adam,
// against NumPy's float64 run with a hand-written backward of the same model, initial weights and batches
// (test/fixtures/train/cnn-images.json, by scripts/train-reference/cnn_images.py): every step's loss and every final
// parameter within 1e-9 relative in float64, eagerly and through compileTrainStep; the float32 loss curve within 1e-4
// on the cpu and wasm dialects.

import { describe, expect, it } from 'vitest';
import { train, withDialect, type DType, type Tensor } from '../../runtime/src/index.ts';
import { batch, cnnLoss, fixture, images, initParams, maxRel } from './cnn-model.ts';

function optimizer(name: string, dtype: DType): train.Optimizer {
  const ref = fixture.runs[name]!;
  const c = ref.config as Record<string, number>;
  const init = initParams(dtype);
  const opt =
    ref.optimizer === 'sgd'
      ? train.sgd(init, { lr: c.lr, momentum: c.momentum, weightDecay: c.weight_decay })
      : train.adam(init, { lr: c.lr });
  for (const t of Object.values(init)) t.dispose();
  return opt;
}

interface Result {
  losses: number[];
  final: Record<string, Float64Array | Float32Array>;
  allData: number;
}

function finish(opt: train.Optimizer, losses: number[], dtype: DType): Result {
  const final: Record<string, Float64Array | Float32Array> = {};
  for (const [n, p] of Object.entries(opt.params)) final[n] = p.dataSync().slice() as Float64Array | Float32Array;
  expect(opt.state.step).toBe(fixture.batches.length);
  const all = images(
    fixture.labels.map((_, i) => i),
    dtype,
  );
  const l = cnnLoss(opt.params, all.x, all.y);
  const allData = l.item();
  for (const t of [l, all.x, all.y]) t.dispose();
  opt.dispose();
  return { losses, final, allData };
}

function eager(name: string, dtype: DType): Result {
  const opt = optimizer(name, dtype);
  const losses: number[] = [];
  for (let k = 0; k < fixture.batches.length; k++) {
    const { x, y } = batch(k, dtype);
    const loss = train.trainStep((p) => cnnLoss(p, x, y), opt);
    losses.push(loss.item());
    for (const t of [loss, x, y]) t.dispose();
  }
  return finish(opt, losses, dtype);
}

function compiled(name: string, dtype: DType): Result {
  const opt = optimizer(name, dtype);
  const first = batch(0, dtype);
  const step = train.compileTrainStep((p, x, y) => cnnLoss(p, x!, y!), opt, [first.x, first.y]);
  first.x.dispose();
  first.y.dispose();
  const losses: number[] = [];
  for (let k = 0; k < fixture.batches.length; k++) {
    const { x, y } = batch(k, dtype);
    const loss = step([x, y] as Tensor[]);
    losses.push(loss.item());
    for (const t of [loss, x, y]) t.dispose();
  }
  return finish(opt, losses, dtype);
}

function expectFloat64Parity(name: string, r: Result): void {
  const ref = fixture.runs[name]!;
  expect(maxRel(r.losses, ref.losses)).toBeLessThan(1e-9);
  for (const [n, want] of Object.entries(ref.final)) expect(maxRel(r.final[n]!, want), n).toBeLessThan(1e-9);
  expect(Math.abs(r.allData - ref.final_loss_all_data) / ref.final_loss_all_data).toBeLessThan(1e-9);
}

function expectCurveWithin(name: string, losses: number[], tol: number): void {
  const ref = fixture.runs[name]!;
  expect(losses.length).toBe(ref.losses.length);
  for (let k = 0; k < losses.length; k++)
    expect(Math.abs(losses[k]! - ref.losses[k]!), `step ${k + 1}: ${losses[k]} vs ${ref.losses[k]}`).toBeLessThan(
      tol * Math.max(1, Math.abs(ref.losses[k]!)),
    );
}

describe.each(Object.keys(fixture.runs))('CNN on generated images, %s, 40 steps', (name) => {
  const ref = fixture.runs[name]!;

  it('float64: every loss and every final parameter within 1e-9 relative of NumPy', () => {
    const r = eager(name, 'float64');
    expectFloat64Parity(name, r);
    // The run trains: the loss over all 128 images ends well below the first batch's.
    expect(r.allData).toBeLessThan(0.85 * r.losses[0]!);
  });

  it('float64 through compileTrainStep: every loss and every final parameter within 1e-9 relative', () => {
    expectFloat64Parity(name, compiled(name, 'float64'));
  });

  it('float32 on the cpu dialect: the loss curve within 1e-4 of NumPy float64', () => {
    const r = withDialect(['cpu'], () => eager(name, 'float32'));
    expectCurveWithin(name, r.losses, 1e-4);
    expect(Math.abs(r.allData - ref.final_loss_all_data)).toBeLessThan(1e-4);
  });

  it('float32 on the wasm dialect (cpu where wasm has no kernel): the loss curve within 1e-4', () => {
    const r = withDialect(['wasm', 'cpu'], () => eager(name, 'float32'));
    expectCurveWithin(name, r.losses, 1e-4);
  });
});
