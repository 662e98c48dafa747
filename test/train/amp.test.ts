// Dynamic loss scaling (runtime/src/train/amp.ts) against torch.cuda.amp.GradScaler's documented rules, with infs and
// NaNs injected into the data of chosen steps: a skipped step leaves parameters and optimizer state as they were, the
// scale backs off by backoffFactor on each skip and grows by growthFactor after growthInterval clean steps, and the
// steps taken equal plain training on the clean batches bit for bit (a power-of-two scale is exact in float32). Run on
// the CPU and, with an adapter, on WebGPU.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ops, tensor, train, type Tensor } from '../../runtime/src/index.ts';
import {
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

const W0 = [0.5, -1.25, 0.75, 2, -0.375, 1];
/** Step k's data: clean values, or with an inf or a NaN injected where `bad` says. */
function data(k: number, bad?: number): number[] {
  return W0.map((_, i) => (i === 2 && bad !== undefined ? bad : 0.25 * (((k * 7 + i * 3) % 11) - 5) + 0.125));
}
/** loss = sum(w * x) + sum(w * w) / 2. */
const loss = (x: Tensor) => (p: train.Params) =>
  ops.add(ops.sum(ops.multiply(p.w!, x)), ops.multiply(ops.sum(ops.multiply(p.w!, p.w!)), 0.5));

const bad: Record<number, number> = { 2: Infinity, 3: -Infinity, 7: Infinity, 9: NaN };
// The scale after each step by GradScaler's rules (init 1024, growth 2 every 3 clean steps, backoff 0.5), by hand.
const SCALES = [1024, 1024, 512, 256, 256, 256, 512, 256, 256, 128, 128, 128, 256];

for (const device of ['cpu', 'webgpu'] as const) {
  describe(`loss scaling on ${device}`, () => {
    const place = async (t: Tensor) => (device === 'webgpu' ? await t.to('webgpu') : t);
    const ready = (ctx: { skip: (why: string) => void }) => {
      if (device === 'cpu' || gpu) return true;
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return false;
    };

    it('skips the steps with inf or NaN gradients, backs off and grows the scale as GradScaler does', async (ctx) => {
      if (!ready(ctx)) return;
      const opt = train.adam({ w: await place(tensor(W0, { dtype: 'float32' })) }, { lr: 0.05 });
      const plain = train.adam({ w: await place(tensor(W0, { dtype: 'float32' })) }, { lr: 0.05 });
      const scaler = new train.GradScaler({ initScale: 1024, growthInterval: 3 });
      for (let k = 0; k < SCALES.length; k++) {
        const before = Array.from(await opt.params.w!.data());
        const stepsBefore = opt.state.step;
        const x = await place(tensor(data(k, bad[k]), { dtype: 'float32' }));
        const { loss: l, skipped } = await train.ampTrainStep(loss(x), opt, scaler);
        expect(skipped, `step ${k}`).toBe(k in bad);
        expect(scaler.scale, `scale after step ${k}`).toBe(SCALES[k]);
        if (skipped) {
          expect(Array.from(await opt.params.w!.data()), `step ${k} left w as it was`).toEqual(before);
          expect(opt.state.step).toBe(stepsBefore);
        } else {
          const p = train.trainStep(loss(x), plain);
          expect(Number((await l.data())[0])).toBe(Number((await p.data())[0]));
          expect(Array.from(await opt.params.w!.data()), `step ${k}`).toEqual(Array.from(await plain.params.w!.data()));
          p.dispose();
        }
        expect(opt.params.w!.device.kind).toBe(device);
        l.dispose();
        x.dispose();
      }
      expect(scaler.skipped).toBe(Object.keys(bad).length);
      expect(opt.state.step).toBe(SCALES.length - Object.keys(bad).length);
      opt.dispose();
      plain.dispose();
    });

    it('a scale too large for float32 is backed off until the scaled gradients are finite', async (ctx) => {
      if (!ready(ctx)) return;
      // loss = sum(w * x): the gradient is x (largest |x| = 1.5), scaled by 2^k: finite in float32 for k <= 127 only (1.5 * 2^127 < 2^128).
      const x = await place(tensor([1.5, -0.5, 1, -1.25], { dtype: 'float32' }));
      const linear = (p: train.Params) => ops.sum(ops.multiply(p.w!, x));
      const opt = train.sgd({ w: await place(tensor([1, 2, 3, 4], { dtype: 'float32' })) }, { lr: 0.5 });
      const scaler = new train.GradScaler({ initScale: 2 ** 140 });
      let skips = 0;
      for (;;) {
        const { loss: l, skipped } = await train.ampTrainStep(linear, opt, scaler);
        l.dispose();
        if (!skipped) break;
        skips++;
        expect(skips).toBeLessThan(20);
      }
      expect(skips).toBe(140 - 127);
      expect(scaler.scale).toBe(2 ** 127);
      expect(Array.from(await opt.params.w!.data())).toEqual([1 - 0.75, 2 + 0.25, 3 - 0.5, 4 + 0.625]);
      opt.dispose();
      x.dispose();
    });
  });
}

describe('GradScaler: bad options', () => {
  it.each([
    [{ initScale: 0 }, 'initScale must be a finite number > 0, got 0'],
    [{ growthFactor: 1 }, 'growthFactor must be a finite number > 1, got 1'],
    [{ backoffFactor: 1 }, 'backoffFactor must be in (0, 1), got 1'],
    [{ growthInterval: 1.5 }, 'growthInterval must be an integer >= 1, got 1.5'],
  ])('%j', (options, message) => {
    expect(() => new train.GradScaler(options)).toThrow(message);
  });
});
