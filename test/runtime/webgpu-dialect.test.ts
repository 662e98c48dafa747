// The WebGPU dialect's machinery: device placement decides the dialect, moves are explicit, pipelines are shared across shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ops, randomUniform, tensor, withDialect } from '../../runtime/src/index.ts';
import {
  benchWebGpu,
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
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

const needGpu = (ctx: { skip: (note?: string) => void }): GpuContext | undefined => {
  if (gpu) return gpu;
  if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
  ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  return undefined;
};

describe('webgpu dialect', () => {
  it('runs an op where its tensors live, and moves data only when asked', async (ctx) => {
    if (!needGpu(ctx)) return;
    const x = tensor([[1, -2, 3]]);
    const xg = await x.to('webgpu');
    const y = ops.relu(xg);
    expect(y.device.kind).toBe('webgpu');
    expect(() => y.dataSync()).toThrow(/await t.data\(\)/);
    expect(Array.from(await y.data())).toEqual([1, 0, 3]);
    const back = await y.to('cpu');
    expect(back.device.kind).toBe('cpu');
    expect(Array.from(back.dataSync())).toEqual([1, 0, 3]);
    expect(() => ops.add(xg, x)).toThrow(/move it with `await t.to/);
  });

  it('compiles one pipeline per kernel and dtype, whatever the shapes, axes and broadcasts', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    const before = g.pipelines.compiledPipelineCount();
    for (const shape of [[5], [3, 4], [2, 3, 4], [2, 1, 4, 3]]) {
      const x = await randomUniform(shape, { seed: shape.length }).to('webgpu');
      const b = await randomUniform(shape.slice(-1), { seed: 9 }).to('webgpu');
      for (const y of [
        ops.add(x, b),
        ops.softmax(x, 0),
        ops.softmax(x, -1),
        ops.sum(x, [shape.length - 1]),
        ops.sum(x),
      ])
        y.dispose();
      x.dispose();
      b.dispose();
    }
    // softmax and sum: one pipeline each. add: its general strided pipeline, compiled at build, plus the fast index
    // modes these calls use (same shape, and a trailing-dims row), each compiled once whatever the shapes.
    expect(g.pipelines.compiledPipelineCount() - before).toBe(5);
  });

  it('indexes every broadcast pattern right, whichever index mode it picks', async (ctx) => {
    if (!needGpu(ctx)) return;
    // same shape (flat), bias row (tail), column (head), scalar, middle axis (strided), and both operands broadcast.
    const pairs = [
      [
        [4, 5],
        [4, 5],
      ],
      [[4, 5], [5]],
      [
        [4, 5],
        [4, 1],
      ],
      [[4, 5], []],
      [
        [2, 3, 4],
        [3, 1],
      ],
      [
        [3, 1],
        [1, 4],
      ],
      [
        [2, 1, 3],
        [2, 4, 1],
      ],
    ];
    for (const [sa, sb] of pairs) {
      const a = randomUniform(sa!, { seed: 1 });
      const b = randomUniform(sb!, { seed: 2 });
      const want = withDialect(['cpu'], () => ops.subtract(a, b));
      const ag = await a.to('webgpu');
      const bg = await b.to('webgpu');
      const y = ops.subtract(ag, bg);
      expect(y.shape).toEqual(want.shape);
      expect(Array.from(await y.data())).toEqual(Array.from(want.dataSync()));
      for (const t of [ag, bg, y]) t.dispose();
    }
  });

  it('rejects float64 moves with the reason', async (ctx) => {
    if (!needGpu(ctx)) return;
    await expect(tensor([1], { dtype: 'float64' }).to('webgpu')).rejects.toThrow(/WGSL has no float64/);
  });

  it('offers a bench helper that waits for the queue', async (ctx) => {
    if (!needGpu(ctx)) return;
    const a = await randomUniform([64, 64], { seed: 1 }).to('webgpu');
    const live = gpu!.pool.liveBufferCount();
    const timing = await benchWebGpu(() => withDialect(['webgpu'], () => ops.matmul(a, a)), {
      iterations: 20,
      warmup: 2,
    });
    expect(timing.iterations).toBe(20);
    expect(timing.msPerCall).toBeGreaterThan(0);
    // Each result was disposed after its call, so the run leaves no buffer behind.
    expect(timing.liveBuffers).toBe(live);
    a.dispose();
  });
});
