// The training step in graph mode (trace, AutoDiff pass, executor): the MLP-on-iris parity run of mlp-iris.test.ts,
// compiled once, within 1e-9 relative of NumPy's float64 run at every step and in the final parameters.

import { describe, expect, it } from 'vitest';
import { ops, tensor, train, type Tensor } from '../../runtime/src/index.ts';
import { batch, fixture, initParams, irisData, mlpLoss } from './mlp.ts';

const data = irisData();

function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < b.length; i++)
    worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(Math.abs(b[i]!), 1e-12));
  return worst;
}

describe.each(Object.keys(fixture.runs))('compiled training step, MLP on iris, %s', (name) => {
  it('float64: every loss and the final parameters within 1e-9 relative of NumPy', () => {
    const ref = fixture.runs[name]!;
    const c = ref.config as Record<string, number>;
    const init = initParams('float64');
    const opt =
      ref.optimizer === 'sgd'
        ? train.sgd(init, { lr: c.lr, momentum: c.momentum, weightDecay: c.weight_decay })
        : train.adam(init, { lr: c.lr });
    const first = batch(data, 0, 'float64');
    const step = train.compileTrainStep((p, x, y) => mlpLoss(p, x!, y!), opt, [first.x, first.y]);
    const losses: number[] = [];
    for (let k = 0; k < fixture.batches.length; k++) {
      const { x, y } = batch(data, k, 'float64');
      const loss = step([x, y]);
      losses.push(loss.item());
      for (const t of [loss, x, y]) t.dispose();
    }
    expect(maxRel(losses, ref.losses)).toBeLessThan(1e-9);
    for (const [n, want] of Object.entries(ref.final))
      expect(maxRel(opt.params[n]!.dataSync(), want), n).toBeLessThan(1e-9);
    opt.dispose();
  });
});

describe('compiled training step errors', () => {
  it('a parameter that does not reach the loss is named at compile time', () => {
    const opt = train.sgd(
      { w: tensor([1, 2], { dtype: 'float64' }), v: tensor([3], { dtype: 'float64' }) },
      { lr: 0.1 },
    );
    const x = tensor([0.5, 0.25], { dtype: 'float64' });
    expect(() => train.compileTrainStep((p, xb) => ops.sum(ops.multiply(p.w!, xb!)), opt, [x])).toThrow(
      "compileLossAndGrads: parameter 'v': does not reach the loss",
    );
  });

  it('a batch of another shape is refused by the executor, and nothing is updated', () => {
    const opt = train.sgd({ w: tensor([1, 2], { dtype: 'float64' }) }, { lr: 0.1 });
    const x = tensor([0.5, 0.25], { dtype: 'float64' });
    const step = train.compileTrainStep((p, xb) => ops.sum(ops.multiply(p.w!, xb!)), opt, [x]);
    const loss = step([x]);
    expect(loss.item()).toBe(1);
    // d/dw sum(w * x) = x: w - 0.1 x.
    expect(Array.from(opt.params.w!.dataSync())).toEqual([1 - 0.05, 2 - 0.025]);
    // The batch tensor the gradient equals was not freed by the step.
    expect(Array.from(x.dataSync())).toEqual([0.5, 0.25]);
    expect(() => step([tensor([1, 2, 3], { dtype: 'float64' }) as Tensor])).toThrow(/traced for/);
    expect(opt.state.step).toBe(1);
  });
});
