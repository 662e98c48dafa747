// The adam op's WebGPU kernel (float32) against torch.optim.Adam's documented update computed here in float64 from the
// same float32 inputs, with the parameter at zero so that new_param is the update itself: every element within 1e-6
// of the largest update, for betas near 1 (where 1 - beta2 and 1 - beta2^step cancel in float32) and steps from 1 to
// 10000. The kernel that formed 1 - f32(0.999) and 1 - pow(beta2, step) in float32 was up to 9e-5 off here (22 of
// these 30 cases failed), and 40 Adam steps of the CNN of cnn-images-webgpu.test.ts ended 7e-3 off NumPy's loss.
// Skipped without a WebGPU adapter (a failure on CI or with RAF_REQUIRE_WEBGPU=1).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ops, tensor } from '../../runtime/src/index.ts';
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

/** n float32 values in [lo, hi) from a fixed linear congruential sequence. */
function values(n: number, seed: number, lo: number, hi: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + ((hi - lo) * s) / 2 ** 32;
  }
  return out;
}

const CONFIGS = [
  { beta1: 0.9, beta2: 0.999, amsgrad: false },
  { beta1: 0.9, beta2: 0.9999, amsgrad: false },
  { beta1: 0.99, beta2: 0.999, amsgrad: true },
  { beta1: 0.5, beta2: 0.99, amsgrad: false },
  { beta1: 0, beta2: 0.999, amsgrad: false },
];

describe.each(CONFIGS)('adam on WebGPU, beta1 $beta1, beta2 $beta2, amsgrad $amsgrad', ({ beta1, beta2, amsgrad }) => {
  it.for([1, 2, 3, 10, 100, 10000])(
    'step %i: the update within 1e-6 of float64 (relative to the largest)',
    async (t, ctx) => {
      if (!gpu) {
        if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
        ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
        return;
      }
      const n = 64;
      const lr = 1e-3;
      const eps = 1e-8;
      const g = values(n, 1 + t, -1e-2, 1e-2);
      const m = values(n, 2 + t, -1e-2, 1e-2);
      const v = values(n, 3 + t, 1e-6, 1e-4);
      const vmax = values(n, 4 + t, 1e-6, 1e-4);
      // torch.optim.Adam's algorithm box, in float64.
      const want = Array.from(g, (gi, i) => {
        const mi = beta1 * m[i]! + (1 - beta1) * gi;
        const vi = beta2 * v[i]! + (1 - beta2) * gi * gi;
        const vhat = (amsgrad ? Math.max(vi, vmax[i]!) : vi) / (1 - beta2 ** t);
        return (-lr * (mi / (1 - beta1 ** t))) / (Math.sqrt(vhat) + eps);
      });
      const onGpu = async (a: Float32Array, shape = [n]) =>
        tensor(Array.from(a), { dtype: 'float32', shape }).to('webgpu');
      const ins = [
        await onGpu(new Float32Array(n)),
        await onGpu(g),
        await onGpu(m),
        await onGpu(v),
        await onGpu(vmax),
        await tensor([t], { dtype: 'int32' }).to('webgpu'),
      ] as const;
      const outs = ops.adam(...ins, lr, beta1, beta2, eps, 0, amsgrad);
      expect(outs[0]!.device.kind).toBe('webgpu');
      const got = await outs[0]!.data();
      // Relative to the largest update: beta1 * m + (1 - beta1) * g may cancel in an element, and float32 moments then
      // carry a larger relative error there on any device.
      const scale = Math.max(...want.map(Math.abs));
      let worst = 0;
      for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!) / scale);
      expect(worst).toBeLessThan(1e-6);
      for (const o of [...ins, ...outs]) o.dispose();
    },
  );
});
