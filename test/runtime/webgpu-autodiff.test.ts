// Autodiff on WebGPU results without an explicit seed: the default ones seed and the zero-fills land on the result's device.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  backward,
  grad,
  ops,
  randomUniform,
  tensor,
  Tensor,
  valueAndGrad,
  withDialect,
} from '../../runtime/src/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { assertAllClose } from '../support/assert.ts';
import { REQUIRE_WEBGPU, WEBGPU_TOLERANCE } from '../support/webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

const needGpu = (ctx: { skip: (note?: string) => void }): boolean => {
  if (gpu) return true;
  if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
  ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  return false;
};

// A non-scalar result, so the default seed is ones of its shape (the gradient of its sum), through a broadcast.
const f = (x: Tensor, b: Tensor) => ops.softmax(ops.multiply(ops.tanh(x), b), -1);

describe('webgpu autodiff without dy', () => {
  it("backward(y) seeds with ones on y's device and matches the CPU", async (ctx) => {
    if (!needGpu(ctx)) return;
    const x = randomUniform([3, 4], { seed: 1 });
    const b = randomUniform([4], { seed: 2, low: 0.5, high: 2 });
    const xc = new Tensor(x.shape, x.dtype, x.storage).requireGrad();
    const bc = new Tensor(b.shape, b.dtype, b.storage).requireGrad();
    withDialect(['cpu'], () => backward(ops.sum(ops.multiply(f(xc, bc), f(xc, bc)))));

    const xg = (await x.to('webgpu')).requireGrad();
    const bg = (await b.to('webgpu')).requireGrad();
    const y = withDialect(['webgpu'], () => ops.multiply(f(xg, bg), f(xg, bg)));
    expect(y.device.kind).toBe('webgpu');
    withDialect(['webgpu'], () => backward(ops.sum(y)));
    for (const [got, want, name] of [
      [xg.grad!, xc.grad!, 'x'],
      [bg.grad!, bc.grad!, 'b'],
    ] as const) {
      expect(got.device.kind).toBe('webgpu');
      assertAllClose(
        Array.from(await got.data()),
        Array.from(want.dataSync()),
        WEBGPU_TOLERANCE,
        `d/d${name} on webgpu vs cpu`,
      );
    }
    // A non-scalar root: its implicit seed is ones of its shape, made on the GPU.
    const xh = (await x.to('webgpu')).requireGrad();
    withDialect(['webgpu'], () => backward(f(xh, bg)));
    const xd = new Tensor(x.shape, x.dtype, x.storage).requireGrad();
    withDialect(['cpu'], () => backward(f(xd, b)));
    assertAllClose(
      Array.from(await xh.grad!.data()),
      Array.from(xd.grad!.dataSync()),
      WEBGPU_TOLERANCE,
      'd softmax/dx, implicit seed',
    );
  });

  it('grad and valueAndGrad zero-fill an unused input on its device', async (ctx) => {
    if (!needGpu(ctx)) return;
    const x = await tensor([[1, -2, 3]]).to('webgpu');
    const unused = await tensor([5, 6]).to('webgpu');
    const [dx, dUnused] = withDialect(['webgpu'], () => grad((a: Tensor, _u: Tensor) => ops.relu(a))(x, unused));
    expect(dx!.device.kind).toBe('webgpu');
    expect(Array.from(await dx!.data())).toEqual([1, 0, 1]);
    expect(dUnused!.device.kind).toBe('webgpu');
    expect(Array.from(await dUnused!.data())).toEqual([0, 0]);
    // No differentiated input reaches the output at all: every gradient is a zero-fill.
    const { grads } = withDialect(['webgpu'], () => valueAndGrad((_a: Tensor) => ops.relu(unused))(x));
    expect(grads[0]!.device.kind).toBe('webgpu');
    expect(Array.from(await grads[0]!.data())).toEqual([0, 0, 0]);
  });
});
