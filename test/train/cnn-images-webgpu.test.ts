// The CNN-on-images parity run of cnn-images.test.ts on WebGPU: parameters, batches and optimizer state on the GPU
// (conv2d, max_pool2d and their backward kernels, the sgd and adam ops' WebGPU kernels), float32, every step's loss
// within 1e-4 of NumPy's float64 run. Skipped without a WebGPU adapter (a failure on CI or with RAF_REQUIRE_WEBGPU=1).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { train, type Tensor } from '../../runtime/src/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';
import { batch, cnnLoss, fixture, initParams } from './cnn-model.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

describe.each(Object.keys(fixture.runs))('CNN on generated images on WebGPU, %s, 40 steps', (name) => {
  it('float32: the loss curve within 1e-4 of NumPy float64, everything on the GPU', async (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return;
    }
    const ref = fixture.runs[name]!;
    const c = ref.config as Record<string, number>;
    const init: Record<string, Tensor> = {};
    for (const [n, t] of Object.entries(initParams('float32'))) {
      init[n] = await t.to('webgpu');
      t.dispose();
    }
    const opt =
      ref.optimizer === 'sgd'
        ? train.sgd(init, { lr: c.lr, momentum: c.momentum, weightDecay: c.weight_decay })
        : train.adam(init, { lr: c.lr });
    for (let k = 0; k < fixture.batches.length; k++) {
      const b = batch(k, 'float32');
      const x = await b.x.to('webgpu');
      const y = await b.y.to('webgpu');
      const loss = train.trainStep((p) => cnnLoss(p, x, y), opt);
      expect(loss.device.kind).toBe('webgpu');
      const v = (await loss.data())[0]!;
      expect(Math.abs(v - ref.losses[k]!), `step ${k + 1}: ${v} vs ${ref.losses[k]}`).toBeLessThan(
        1e-4 * Math.max(1, Math.abs(ref.losses[k]!)),
      );
      for (const t of [loss, x, y, b.x, b.y]) t.dispose();
    }
    expect(opt.state.step).toBe(fixture.batches.length);
    for (const p of Object.values(opt.params)) expect(p.device.kind).toBe('webgpu');
    opt.dispose();
  });
});
