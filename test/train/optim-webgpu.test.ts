// The optimizer ops' WebGPU kernels (float32) against NumPy's float64 reference of test/fixtures/train/optim-steps.json,
// every configuration of sgd, adam/adamw and lans, checked after every step; and LANS on parameters larger than its
// kernel's one workgroup (the lanes stride over the tensor) against the CPU dialect. Skipped without a WebGPU adapter
// (a failure with RAF_REQUIRE_WEBGPU=1).

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tensor, train, withDialect, type Tensor } from '../../runtime/src/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

interface Case {
  op: 'sgd' | 'adam' | 'lans';
  config: Record<string, number | boolean>;
  shape: number[];
  param: number[];
  grads: number[][];
  params_after_each_step: number[][];
}
const { cases } = JSON.parse(readFileSync(new URL('../fixtures/train/optim-steps.json', import.meta.url), 'utf8')) as {
  cases: Case[];
};

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

function needGpu(ctx: { skip: (why: string) => void }): boolean {
  if (gpu) return true;
  if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
  ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  return false;
}

function optimizerFor(op: Case['op'], config: Case['config'], params: train.Params): train.Optimizer {
  const k = config as Record<string, number> & Record<string, boolean>;
  if (op === 'sgd')
    return train.sgd(params, {
      lr: k.lr,
      momentum: k.momentum,
      dampening: k.dampening,
      weightDecay: k.weight_decay,
      nesterov: k.nesterov,
    });
  if (op === 'lans')
    return train.lans(params, {
      lr: k.lr,
      beta1: k.beta1,
      beta2: k.beta2,
      eps: k.eps,
      weightDecay: k.weight_decay,
      biasCorrection: k.bias_correction,
      gradAveraging: k.grad_averaging,
      decoupledWeightDecay: k.mode,
      normalizeGrad: k.normalize_grad,
    });
  const o = { lr: k.lr, beta1: k.beta1, beta2: k.beta2, eps: k.eps, weightDecay: k.weight_decay, amsgrad: k.amsgrad };
  return k.decoupled_weight_decay ? train.adamw(params, o) : train.adam(params, o);
}

/** The largest difference relative to the largest magnitude of `want` (float32 kernels round at every element). */
function worstRelative(actual: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(actual.length).toBe(want.length);
  let worst = 0;
  let scale = 0;
  for (let i = 0; i < want.length; i++) {
    worst = Math.max(worst, Math.abs(actual[i]! - want[i]!));
    scale = Math.max(scale, Math.abs(want[i]!));
  }
  return worst / scale;
}

describe.each(cases.map((c) => [`${c.op} ${JSON.stringify(c.config)}`, c] as const))('webgpu: %s', (_, c) => {
  it("float32 on the GPU: every step's parameter within 1e-5 of NumPy float64 (relative to its largest element)", async (ctx) => {
    if (!needGpu(ctx)) return;
    const opt = optimizerFor(c.op, c.config, {
      p: await tensor(c.param, { dtype: 'float32', shape: c.shape }).to('webgpu'),
    });
    for (const [k, g] of c.grads.entries()) {
      const grad = await tensor(g, { dtype: 'float32', shape: c.shape }).to('webgpu');
      opt.step({ p: grad });
      grad.dispose();
      expect(opt.params.p!.device.kind).toBe('webgpu');
      const got = await opt.params.p!.data();
      expect(worstRelative(got, c.params_after_each_step[k]!), `step ${k + 1}`).toBeLessThanOrEqual(1e-5);
    }
    for (const b of Object.values(opt.state.buffers)) expect(b.p!.device.kind).toBe('webgpu');
    opt.dispose();
  });
});

// 1000 and 4099 elements: more than the kernel's 256 lanes, and not a multiple of them.
describe.each([
  [{ lr: 0.01 }, [1000]],
  [{ lr: 0.02, weight_decay: 0.1, mode: false }, [4099]],
  [{ lr: 0.01, weight_decay: 0, normalize_grad: false, bias_correction: false }, [40, 25]],
] as const)('webgpu lans %j on %j', (config, shape) => {
  it('five steps, parameters and moments within 1e-5 of the CPU dialect in float32', async (ctx) => {
    if (!needGpu(ctx)) return;
    const n = shape.reduce((a: number, b: number) => a * b, 1);
    // A fixed, reproducible pseudo-random sequence (no Math.random: a failure must replay).
    let seed = 12345 + n;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const p0 = Array.from({ length: n }, rand);
    const grads = Array.from({ length: 5 }, () => Array.from({ length: n }, () => rand() * 3));
    const run = async (device: 'cpu' | 'webgpu'): Promise<number[][]> => {
      const place = async (t: Tensor) => (device === 'webgpu' ? await t.to('webgpu') : t);
      const o = optimizerFor('lans', config, { p: await place(tensor(p0, { dtype: 'float32', shape: [...shape] })) });
      const seen: number[][] = [];
      for (const g of grads) {
        const grad = await place(tensor(g, { dtype: 'float32', shape: [...shape] }));
        withDialect([device], () => o.step({ p: grad }));
        grad.dispose();
        seen.push(Array.from(await o.params.p!.data()));
      }
      for (const b of ['exp_avg', 'exp_avg_sq']) seen.push(Array.from(await o.state.buffers[b]!.p!.data()));
      o.dispose();
      return seen;
    };
    const cpu = await run('cpu');
    const gpuSeen = await run('webgpu');
    cpu.forEach((want, k) => expect(worstRelative(gpuSeen[k]!, want), `row ${k}`).toBeLessThanOrEqual(1e-5));
  });
});
