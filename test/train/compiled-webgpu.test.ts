// compileTrainStep on WebGPU: parameters, batches and optimizer state on the GPU, the step graph fused (elementwise
// chains as one kernel each) and its update calls on the WebGPU kernels, the new values copied into the same tensors
// on the GPU; every loss and the final parameters and buffers equal the eager trainStep's bit for bit (the eager
// path is checked against NumPy in mlp-iris-webgpu.test.ts). Skipped without a WebGPU adapter (a failure on CI or
// with RAF_REQUIRE_WEBGPU=1).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { train, type Tensor } from '../../runtime/src/index.ts';
import { kernelLaunches } from '../../runtime/src/graph/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';
import { batch, initParams, irisData, mlpLoss, type Params } from './mlp.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

const data = irisData();
const OPTIMIZERS: Record<string, (p: Params) => train.Optimizer> = {
  'sgd nesterov': (p) => train.sgd(p, { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.01 }),
  adam: (p) => train.adam(p, { lr: 0.01 }),
  lans: (p) => train.lans(p, { lr: 0.01 }),
};

async function values(opt: train.Optimizer): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const [n, p] of Object.entries(opt.params)) out[n] = Array.from(await p.data());
  for (const [b, ts] of Object.entries(opt.state.buffers))
    for (const [n, t] of Object.entries(ts)) out[`${b}.${n}`] = Array.from(await t.data());
  return out;
}

describe.each(Object.keys(OPTIMIZERS))('compiled step on WebGPU, %s', (name) => {
  it('every loss and the final state equal the eager step bit for bit, 8 steps', async (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return;
    }
    const onGpu = async () => {
      const init: Params = {};
      for (const [n, t] of Object.entries(initParams('float32'))) init[n] = await t.to('webgpu');
      return OPTIMIZERS[name]!(init);
    };
    const eager = await onGpu();
    const compiled = await onGpu();
    const b0 = batch(data, 0, 'float32');
    const [x0, y0] = [await b0.x.to('webgpu'), await b0.y.to('webgpu')];
    const step = train.compileTrainStep((p, x, y) => mlpLoss(p, x!, y!), compiled, [x0, y0]);
    // The compiled step rewrites the parameters and buffers in place (a copy on the GPU): the same tensors throughout.
    const held = () => [
      ...Object.values(compiled.params),
      ...Object.values(compiled.state.buffers).flatMap((ts) => Object.values(ts)),
    ];
    const before = held();
    const le: number[] = [];
    const lc: number[] = [];
    for (let k = 0; k < 8; k++) {
      const b = batch(data, k, 'float32');
      const x = await b.x.to('webgpu');
      const y = await b.y.to('webgpu');
      const a = train.trainStep((p) => mlpLoss(p, x, y), eager);
      const c = step([x, y]);
      le.push((await a.data())[0]!);
      lc.push((await c.data())[0]!);
      for (const t of [a, c, x, y] as Tensor[]) t.dispose();
    }
    expect(lc).toEqual(le);
    expect(le[7]).not.toBe(le[0]);
    const after = held();
    expect(after).toHaveLength(before.length);
    after.forEach((t, i) => expect(t, `tensor ${i} kept across steps`).toBe(before[i]));
    expect(after.every((t) => !t.isDisposed && t.device.kind === 'webgpu')).toBe(true);
    expect(await values(compiled)).toEqual(await values(eager));
    for (const t of [eager, compiled, x0, y0]) t.dispose();
  });
});

describe('compiled step on WebGPU, device memory', () => {
  it('creates no GPU buffer after the first step, and holds as many buffers after each step', async (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return;
    }
    const init: Params = {};
    for (const [n, t] of Object.entries(initParams('float32'))) init[n] = await t.to('webgpu');
    const opt = train.adam(init, { lr: 0.01 });
    const batches: Tensor[][] = [];
    for (let k = 0; k < 6; k++) {
      const b = batch(data, k, 'float32');
      batches.push([await b.x.to('webgpu'), await b.y.to('webgpu')]);
    }
    const step = train.compileTrainStep((p, x, y) => mlpLoss(p, x!, y!), opt, batches[0]!);
    const counts: { created: number; live: number }[] = [];
    for (const b of batches) {
      const loss = step(b);
      await loss.data();
      loss.dispose();
      const { created, live } = gpu.pool.stats();
      counts.push({ created, live });
    }
    // Every step after the first takes its buffers from the pool: none is created, none is kept.
    expect(counts.slice(1)).toEqual(counts.slice(1).map(() => counts[0]));
    opt.dispose();
    for (const b of batches) for (const t of b) t.dispose();
  });
});

describe('compiled step on WebGPU, fusion', () => {
  it('fuses the step graph: fewer kernel launches than unfused, the same losses and parameters', async (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return;
    }
    const b = batch(data, 0, 'float32');
    const [x, y] = [await b.x.to('webgpu'), await b.y.to('webgpu')];
    const run = async (fuse: boolean) => {
      const init: Params = {};
      for (const [n, t] of Object.entries(initParams('float32'))) init[n] = await t.to('webgpu');
      const opt = train.adam(init, { lr: 0.01 });
      const step = train.compileTrainStep((p, xb, yb) => mlpLoss(p, xb!, yb!), opt, [x, y], { fuse });
      const losses: number[] = [];
      let launches = 0;
      for (let k = 0; k < 3; k++) {
        const before = kernelLaunches();
        const l = step([x, y]);
        launches = kernelLaunches() - before;
        losses.push((await l.data())[0]!);
        l.dispose();
      }
      const fusedGroups = step.graph.nodes.filter((n) => n.kind === 'fused').length;
      const state = await values(opt);
      opt.dispose();
      return { losses, launches, fusedGroups, state };
    };
    const fused = await run(true);
    const unfused = await run(false);
    expect(unfused.fusedGroups).toBe(0);
    expect(fused.fusedGroups).toBeGreaterThan(0);
    // Each fused group of k calls is one launch instead of k.
    expect(fused.launches).toBeLessThan(unfused.launches);
    expect(fused.losses[2]).not.toBe(fused.losses[0]);
    for (let k = 0; k < 3; k++) expect(fused.losses[k]).toBeCloseTo(unfused.losses[k]!, 6);
    for (const [name, v] of Object.entries(unfused.state))
      fused.state[name]!.forEach((u, i) => expect(Math.abs(u - v[i]!), name).toBeLessThan(1e-6));
    for (const t of [x, y]) t.dispose();
  });
});
