// Parity of training: the MLP of test/train/mlp.ts trained 50 steps on iris with SGD (momentum, weight decay) and
// Adam, against NumPy's float64 run of the same model, initial weights and batches (test/fixtures/train/mlp-iris.json,
// by scripts/train-reference/mlp_iris.py): every step's loss and the final parameters within 1e-9 relative in
// float64; the float32 loss curve within 1e-4.

import { describe, expect, it } from 'vitest';
import { train, type DType } from '../../runtime/src/index.ts';
import { batch, fixture, initParams, irisData, mlpLoss } from './mlp.ts';

const data = irisData();

function run(name: string, dtype: DType): { losses: number[]; final: Record<string, Float64Array | Float32Array> } {
  const cfg = fixture.runs[name]!;
  const c = cfg.config as Record<string, number>;
  const init = initParams(dtype);
  const opt =
    cfg.optimizer === 'sgd'
      ? train.sgd(init, { lr: c.lr, momentum: c.momentum, weightDecay: c.weight_decay })
      : train.adam(init, { lr: c.lr });
  for (const t of Object.values(init)) t.dispose();
  const losses: number[] = [];
  for (let k = 0; k < fixture.batches.length; k++) {
    const { x, y } = batch(data, k, dtype);
    const loss = train.trainStep((p) => mlpLoss(p, x, y), opt);
    losses.push(loss.item());
    loss.dispose();
    x.dispose();
    y.dispose();
  }
  const final: Record<string, Float64Array | Float32Array> = {};
  for (const [n, p] of Object.entries(opt.params)) final[n] = p.dataSync().slice() as Float64Array | Float32Array;
  expect(opt.state.step).toBe(fixture.batches.length);
  opt.dispose();
  return { losses, final };
}

/** The largest |a - b| / max(|b|, tiny) over two lists. */
function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < b.length; i++)
    worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(Math.abs(b[i]!), 1e-12));
  return worst;
}

describe.each(Object.keys(fixture.runs))('MLP on iris, %s, 50 steps', (name) => {
  const ref = fixture.runs[name]!;

  it('float64: every loss and every final parameter within 1e-9 relative of NumPy', () => {
    const { losses, final } = run(name, 'float64');
    expect(maxRel(losses, ref.losses)).toBeLessThan(1e-9);
    for (const [n, want] of Object.entries(ref.final)) expect(maxRel(final[n]!, want), n).toBeLessThan(1e-9);
    // The run trains: the last batches' loss is well below the first.
    expect(losses[losses.length - 1]!).toBeLessThan(losses[0]! / 5);
  });

  it('float32: the loss curve within 1e-4 of NumPy float64', () => {
    const { losses } = run(name, 'float32');
    for (let k = 0; k < losses.length; k++)
      expect(Math.abs(losses[k]! - ref.losses[k]!), `step ${k + 1}`).toBeLessThan(
        1e-4 * Math.max(1, Math.abs(ref.losses[k]!)),
      );
  });
});
