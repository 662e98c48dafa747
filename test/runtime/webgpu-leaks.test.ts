// A thousand op calls and disposals on the GPU leave the count of live GPU buffers where it started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { gpuSync, ops, randomUniform, withDialect, type Tensor } from '../../runtime/src/index.ts';
import {
  initWebGpu,
  releaseGpu,
  gpuUnavailableReason,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

describe('webgpu buffers', () => {
  it('return to the starting live count after 1000 op calls and disposals', async (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      return ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
    }
    const x = await randomUniform([8, 16], { seed: 1 }).to('webgpu');
    const w = await randomUniform([16, 4], { seed: 2 }).to('webgpu');
    // Per-channel vectors for batch_norm over x's 16 columns (axis 1).
    const x0 = await randomUniform([16], { seed: 3 }).to('webgpu');
    const before = gpu.pool.liveBufferCount();
    const created = gpu.pool.stats().created;
    // A mix of generated and hand kernels; every result, intermediates included, is disposed once used.
    const steps: ((t: Tensor) => Tensor[])[] = [
      (t) => [ops.exp(t)],
      (t) => [ops.softmax(t, -1)],
      (t) => [ops.add(t, x)],
      (t) => [ops.sum(t, [0], true)],
      (t) => {
        const m = ops.matmul(t, w);
        return [m, ops.reshape(m, [4, 8])];
      },
      // Two passes with uploaded tap tables and an intermediate between them; then batch_norm, built from other ops.
      (t) => [ops.resize(t, [2, 1.5], null, [], 'linear')],
      (t) => {
        const v = ops.abs(x0);
        return [v, ops.batchNorm(t, x0, x0, x0, v)];
      },
    ];
    withDialect(['webgpu'], () => {
      for (let i = 0; i < 1000; i++) for (const y of steps[i % steps.length]!(x)) y.dispose();
    });
    await gpuSync();
    expect(gpu.pool.liveBufferCount()).toBe(before);
    // Disposed buffers go back to the pool and are reused, so only a handful were ever created.
    expect(gpu.pool.stats().created - created).toBeLessThan(50);
    expect(gpu.uncapturedErrors).toEqual([]);
    x.dispose();
    w.dispose();
    x0.dispose();
  });
});
