// Mixed precision on WebGPU: the MLP-on-iris runs of mlp-iris.test.ts with float32 master weights on the GPU, the
// forward and backward in float16 (the loss function casts parameters and batch), and dynamic loss scaling
// (train.ampTrainStep): the final loss within 1% of NumPy's float64 run and no step diverging (every loss finite and
// within 5% of the reference's). On an adapter with shader-f16 (lavapipe, scripts/install-lavapipe.sh) the float16
// kernels bind array<f16>; skipped without one (a failure with RAF_REQUIRE_WEBGPU=1).

import { describe, expect, it } from 'vitest';
import { LAVAPIPE_ICD, useLavapipe } from '../support/lavapipe.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';
import type { Params } from '../../runtime/src/train/index.ts';

const lavapipe = useLavapipe();
if (!lavapipe && REQUIRE_WEBGPU)
  throw new Error(`no shader-f16 adapter: ${LAVAPIPE_ICD} is missing; run scripts/install-lavapipe.sh`);

describe.skipIf(!lavapipe)('AMP (float16 forward and backward, float32 master weights) on WebGPU', async () => {
  const { initWebGpu, ops, train } = await import('../../runtime/src/index.ts');
  const { batch, fixture, initParams, irisData, mlpLoss } = await import('./mlp.ts');
  const data = irisData();

  it.each(Object.keys(fixture.runs))(
    '%s: final loss within 1 percent of NumPy float64, no step diverges',
    async (name) => {
      const gpu = (await initWebGpu())!;
      expect(gpu.hasF16).toBe(true);
      const ref = fixture.runs[name]!;
      const c = ref.config as Record<string, number>;
      const init: Record<string, import('../../runtime/src/index.ts').Tensor> = {};
      for (const [n, t] of Object.entries(initParams('float32'))) init[n] = await t.to('webgpu');
      const opt =
        ref.optimizer === 'sgd'
          ? train.sgd(init, { lr: c.lr, momentum: c.momentum, weightDecay: c.weight_decay })
          : train.adam(init, { lr: c.lr });
      // 2^10: the default 2^16 is itself past float16's largest number, so with a float16 loss the first steps would be
      // skipped (backed off) as GradScaler does, and the run would no longer see the reference's batches.
      const scaler = new train.GradScaler({ initScale: 2 ** 10 });
      let last = NaN;
      for (let k = 0; k < fixture.batches.length; k++) {
        const b = batch(data, k, 'float16');
        const x = await b.x.to('webgpu');
        const y = await b.y.to('webgpu');
        const half = (p: Params) => {
          const h: Params = {};
          for (const [n, t] of Object.entries(p)) h[n] = ops.cast(t, 'float16');
          return mlpLoss(h, x, y);
        };
        const { loss, skipped } = await train.ampTrainStep(half, opt, scaler);
        expect(skipped, `step ${k + 1} skipped`).toBe(false);
        expect(loss.device.kind).toBe('webgpu');
        last = (await loss.data())[0]!;
        const want = ref.losses[k]!;
        expect(Math.abs(last - want), `step ${k + 1}: ${last} vs ${want}`).toBeLessThan(0.05 * Math.abs(want));
        for (const t of [loss, x, y, b.x, b.y]) t.dispose();
      }
      for (const p of Object.values(opt.params)) {
        expect(p.dtype).toBe('float32');
        expect(p.device.kind).toBe('webgpu');
      }
      const final = ref.losses.at(-1)!;
      expect(Math.abs(last - final), `final loss ${last} vs ${final}`).toBeLessThan(0.01 * Math.abs(final));
      opt.dispose();
    },
  );
});
