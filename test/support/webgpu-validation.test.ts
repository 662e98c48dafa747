// A WebGPU validation error during a case fails it with WebGPU's own message (what was invalid), rather than
// surfacing only as zeros read back ("element 0 is 0, expected ...").

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initWebGpu, releaseGpu } from '../../runtime/src/index.ts';
import { gpuUnavailableReason, type GpuContext } from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU, validated } from './webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

const need = (ctx: { skip: (note?: string) => void }): GpuContext | undefined => {
  if (gpu) return gpu;
  if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
  ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  return undefined;
};

describe('validated', () => {
  it('fails with the validation message when the work makes an invalid GPU call', async (ctx) => {
    const device = need(ctx);
    if (!device) return;
    const work = async () => {
      // A buffer of no usage is invalid: the call returns an (invalid) buffer, and the error comes later, uncaught.
      device.device.createBuffer({ size: 16, usage: 0 });
      return [0, 0];
    };
    await expect(validated(device, 'raf.op.webgpu.my_op', work)).rejects.toThrow(
      /^raf\.op\.webgpu\.my_op: WebGPU validation error: \S.*usage/is,
    );
  });

  it('returns the work’s value when every call is valid, and passes its own errors through', async (ctx) => {
    const device = need(ctx);
    if (!device) return;
    await expect(validated(device, 'x', async () => [1, 2])).resolves.toEqual([1, 2]);
    await expect(
      validated(device, 'x', async () => {
        throw new Error('from the work');
      }),
    ).rejects.toThrow('from the work');
  });
});
