// The optimizer ops and the optimizers over them against NumPy's float64 reference of torch.optim's documented
// algorithms (test/fixtures/train/optim-steps.json, by scripts/train-reference/optim_steps.py): five steps of each
// configuration, nesterov, dampening, amsgrad and decoupled weight decay included, and RAF's LANS in its four modes,
// checked after every step.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tensor, train, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';

interface Case {
  op: 'sgd' | 'adam' | 'lans';
  config: Record<string, number | boolean>;
  shape: number[];
  param: number[];
  grads: number[][];
  params_after_each_step: number[][];
  momentum_buffer?: number[];
  exp_avg?: number[];
  exp_avg_sq?: number[];
  max_exp_avg_sq?: number[];
}
const { cases } = JSON.parse(readFileSync(new URL('../fixtures/train/optim-steps.json', import.meta.url), 'utf8')) as {
  cases: Case[];
};

function optimizerFor(c: Case, param: Tensor): train.Optimizer {
  const k = c.config as Record<string, number> & Record<string, boolean>;
  if (c.op === 'sgd')
    return train.sgd(
      { p: param },
      { lr: k.lr, momentum: k.momentum, dampening: k.dampening, weightDecay: k.weight_decay, nesterov: k.nesterov },
    );
  if (c.op === 'lans')
    return train.lans(
      { p: param },
      {
        lr: k.lr,
        beta1: k.beta1,
        beta2: k.beta2,
        eps: k.eps,
        weightDecay: k.weight_decay,
        biasCorrection: k.bias_correction,
        gradAveraging: k.grad_averaging,
        decoupledWeightDecay: k.mode,
        normalizeGrad: k.normalize_grad,
      },
    );
  const o = { lr: k.lr, beta1: k.beta1, beta2: k.beta2, eps: k.eps, weightDecay: k.weight_decay, amsgrad: k.amsgrad };
  // Options the fixture leaves out are undefined here: they keep torch's defaults.
  return k.decoupled_weight_decay ? train.adamw({ p: param }, o) : train.adam({ p: param }, o);
}

function close(actual: ArrayLike<number>, want: number[], rtol: number, what: string): void {
  expect(actual.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++)
    expect(Math.abs(actual[i]! - want[i]!), `${what}[${i}]: ${actual[i]} vs ${want[i]}`).toBeLessThanOrEqual(
      rtol * Math.max(Math.abs(want[i]!), 1e-3),
    );
}

describe.each(cases.map((c) => [`${c.op} ${JSON.stringify(c.config)}`, c] as const))('%s', (_, c) => {
  for (const [dtype, rtol] of [
    ['float64', 1e-12],
    ['float32', 1e-5],
  ] as const) {
    it(`${dtype}: every step's parameter, and the final state, match NumPy`, () => {
      const p0 = tensor(c.param, { dtype, shape: c.shape });
      const opt = optimizerFor(c, p0);
      c.grads.forEach((g, k) => {
        const grad = tensor(g, { dtype, shape: c.shape });
        opt.step({ p: grad });
        grad.dispose();
        close(opt.params.p!.dataSync(), c.params_after_each_step[k]!, rtol, `param after step ${k + 1}`);
      });
      expect(opt.state.step).toBe(c.grads.length);
      for (const b of ['momentum_buffer', 'exp_avg', 'exp_avg_sq', 'max_exp_avg_sq'] as const)
        if (c[b]) close(opt.state.buffers[b]!.p!.dataSync(), c[b]!, rtol, b);
      // The optimizer works on its own copy: the caller's tensor is unchanged.
      expect(Array.from(p0.dataSync())).toEqual(Array.from(tensor(c.param, { dtype }).dataSync()));
      opt.dispose();
    });
  }
});

// The wasm kernels (as/optim.ts) compute in float64 and store in the parameter's width like the CPU kernels, so on
// the wasm dialect every step equals the CPU dialect's bit for bit (and so NumPy's within the tolerances above).
describe.each(cases.map((c) => [`${c.op} ${JSON.stringify(c.config)}`, c] as const))('wasm: %s', (_, c) => {
  it.each(['float64', 'float32'] as const)('%s: every step equals the CPU dialect bit for bit', (dtype) => {
    const run = (dialect: string) =>
      withDialect([dialect], () => {
        const opt = optimizerFor(c, tensor(c.param, { dtype, shape: c.shape }));
        const seen: number[][] = [];
        for (const g of c.grads) {
          opt.step({ p: tensor(g, { dtype, shape: c.shape }) });
          seen.push(Array.from(opt.params.p!.dataSync()));
        }
        const onWasm = opt.params.p!.storage instanceof WasmStorage;
        for (const b of Object.values(opt.state.buffers)) seen.push(Array.from(b.p!.dataSync()));
        opt.dispose();
        return { seen, onWasm };
      });
    const cpu = run('cpu');
    const wasm = run('wasm');
    expect(cpu.onWasm).toBe(false);
    expect(wasm.onWasm, 'the update ran in wasm memory').toBe(true);
    expect(wasm.seen).toEqual(cpu.seen);
    c.params_after_each_step.forEach((want, k) =>
      close(wasm.seen[k]!, want, dtype === 'float64' ? 1e-12 : 1e-5, `step ${k + 1}`),
    );
  });
});
