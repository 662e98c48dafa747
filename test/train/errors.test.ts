// Bad input to the training API: each a TrainError naming the parameter or tensor, and a failed step changes nothing.

import { describe, expect, it } from 'vitest';
import { ops, tensor, train, type Tensor } from '../../runtime/src/index.ts';

const params = () => ({
  w: tensor([0.5, -1, 2], { dtype: 'float64' }),
  b: tensor([0.25], { dtype: 'float64' }),
});
const loss = (p: Record<string, Tensor>) => ops.sum(ops.multiply(ops.add(p.w!, p.b!), p.w!));

function snapshot(opt: train.Optimizer): string {
  const parts = Object.entries(opt.params).map(([n, p]) => `${n}=${Array.from(p.dataSync())}`);
  for (const [b, rec] of Object.entries(opt.state.buffers))
    for (const [n, t] of Object.entries(rec)) parts.push(`${b}/${n}=${Array.from(t.dataSync())}`);
  return `${parts.join(' ')} step=${opt.state.step}`;
}

describe('training API errors', () => {
  it('a parameter that does not reach the loss is named; nothing is updated', () => {
    const opt = train.adam({ ...params(), unused: tensor([1, 2], { dtype: 'float64' }) }, { lr: 0.1 });
    const before = snapshot(opt);
    expect(() => train.trainStep(loss, opt)).toThrow("trainStep: parameter 'unused': does not reach the loss");
    expect(snapshot(opt)).toBe(before);
  });

  it('a parameter reached only through an op without a gradient gets none, and is named', () => {
    const opt = train.sgd(params(), { lr: 0.1 });
    const f = (p: Record<string, Tensor>) =>
      ops.sum(ops.multiply(p.w!, ops.cast(ops.greater(p.b!, tensor([0], { dtype: 'float64' })), 'float64')));
    expect(() => train.trainStep(f, opt)).toThrow("parameter 'b': does not reach the loss");
  });

  it('a loss that is not one float number, or does not depend on the params, is refused', () => {
    const opt = train.sgd(params(), { lr: 0.1 });
    expect(() => train.trainStep((p) => ops.multiply(p.w!, p.w!), opt)).toThrow(
      'the loss must be one float number, got float64[3]',
    );
    const outside = tensor(1, { dtype: 'float64' });
    expect(() => train.trainStep(() => ops.multiply(outside, outside), opt)).toThrow(
      'the loss does not depend on any parameter',
    );
    expect(opt.state.step).toBe(0);
  });

  it('gradients of the wrong shape, dtype or names are refused before anything changes', () => {
    const opt = train.sgd(params(), { lr: 0.1, momentum: 0.9 });
    opt.step({ w: tensor([1, 1, 1], { dtype: 'float64' }), b: tensor([1], { dtype: 'float64' }) });
    const before = snapshot(opt);
    expect(() => opt.step({ w: tensor([1, 1], { dtype: 'float64' }), b: tensor([1], { dtype: 'float64' }) })).toThrow(
      "sgd.step: gradient 'w': has shape [2], the parameter has [3]",
    );
    expect(() =>
      opt.step({ w: tensor([1, 1, 1], { dtype: 'float64' }), b: tensor([1], { dtype: 'float32' }) }),
    ).toThrow("sgd.step: gradient 'b': has dtype float32, the parameter has float64");
    expect(() => opt.step({ w: tensor([1, 1, 1], { dtype: 'float64' }) })).toThrow("gradient 'b': is missing");
    expect(snapshot(opt)).toBe(before);
  });

  it('state that does not match the parameters is refused naming the buffer and parameter', () => {
    const opt = train.adam(params());
    const good = { step: 2, buffers: { ...opt.state.buffers } };
    const wrong = {
      ...good,
      buffers: { ...good.buffers, exp_avg: { ...good.buffers.exp_avg!, w: tensor([0, 0], { dtype: 'float64' }) } },
    };
    expect(() => opt.load(params(), wrong)).toThrow(
      "adam.load: state 'exp_avg' of parameter 'w': has shape [2], the parameter has [3]",
    );
    const f32 = {
      ...good,
      buffers: { ...good.buffers, exp_avg_sq: { ...good.buffers.exp_avg_sq!, b: tensor([0], { dtype: 'float32' }) } },
    };
    expect(() => opt.load(params(), f32)).toThrow(
      "state 'exp_avg_sq' of parameter 'b': has dtype float32, the parameter has float64",
    );
    const noMax = { step: 2, buffers: { exp_avg: good.buffers.exp_avg!, exp_avg_sq: good.buffers.exp_avg_sq! } };
    expect(() => opt.load(params(), noMax)).toThrow("state has no 'max_exp_avg_sq' buffers");
    expect(opt.state.step).toBe(0);
    // Loading the optimizer's own tensors (a reset of the step count) keeps their values.
    opt.step({ w: tensor([1, 2, 3], { dtype: 'float64' }), b: tensor([1], { dtype: 'float64' }) });
    const before = snapshot(opt);
    opt.load(opt.params, { step: 0, buffers: opt.state.buffers });
    expect(snapshot(opt)).toBe(before.replace('step=1', 'step=0'));
  });

  it('an op failure mid-step (here: the second parameter) rolls back the whole step', () => {
    const opt = train.sgd(params(), { lr: 0.1 });
    opt.step({ w: tensor([1, 2, 3], { dtype: 'float64' }), b: tensor([1], { dtype: 'float64' }) });
    const before = snapshot(opt);
    // A hyperparameter made invalid between steps is caught before any op runs...
    opt.options.lr = -1;
    expect(() =>
      opt.step({ w: tensor([1, 2, 3], { dtype: 'float64' }), b: tensor([1], { dtype: 'float64' }) }),
    ).toThrow('sgd: lr must be a finite number in [0, ∞], got -1');
    opt.options.lr = 0.1;
    // ...and a gradient the op itself refuses (a disposed tensor for 'b') after 'w' was computed.
    const dead = tensor([1], { dtype: 'float64' });
    dead.dispose();
    expect(() => opt.step({ w: tensor([1, 2, 3], { dtype: 'float64' }), b: dead })).toThrow(/'b'|disposed/);
    expect(snapshot(opt)).toBe(before);
  });

  it('bad options and params are refused at construction', () => {
    expect(() => train.sgd(params(), { lr: 0.1, nesterov: true })).toThrow(
      'nesterov needs momentum > 0 and dampening = 0',
    );
    expect(() => train.adam(params(), { beta1: 1 })).toThrow('adam: beta1 must be a finite number in [0, 1), got 1');
    expect(() => train.adam({})).toThrow('params is empty');
    expect(() => train.sgd({ i: tensor([1], { dtype: 'int32' }) })).toThrow(
      "parameter 'i': has dtype int32; only float tensors are trained",
    );
  });

  it('LANS: bad options, mismatched state and a checkpoint of another optimizer are refused', async () => {
    expect(() => train.lans(params(), { beta2: 1 })).toThrow('lans: beta2 must be a finite number in [0, 1), got 1');
    expect(() => train.lans(params(), { weightDecay: -0.1 })).toThrow('lans: weightDecay must be a finite number');
    const opt = train.lans(params(), { lr: 0.1 });
    opt.step({ w: tensor([1, 2, 3], { dtype: 'float64' }), b: tensor([1], { dtype: 'float64' }) });
    const before = snapshot(opt);
    const wrong = {
      step: 1,
      buffers: { ...opt.state.buffers, exp_avg_sq: { ...opt.state.buffers.exp_avg_sq!, w: tensor([0, 0, 0, 0]) } },
    };
    expect(() => opt.load(params(), wrong)).toThrow(
      "lans.load: state 'exp_avg_sq' of parameter 'w': has shape [4], the parameter has [3]",
    );
    const adamBytes = await train.saveCheckpoint(train.adam(params()));
    expect(() => train.loadCheckpoint(opt, adamBytes)).toThrow(
      'the checkpoint is of a adam optimizer, this one is lans',
    );
    expect(snapshot(opt)).toBe(before);
    // Its own checkpoint round-trips bit for bit.
    const other = train.lans(params(), { lr: 0.1 });
    train.loadCheckpoint(other, await train.saveCheckpoint(opt));
    expect(snapshot(other)).toBe(before);
  });
});
