// The float16 suites again on an adapter with shader-f16 (lavapipe through Dawn's Vulkan backend), where elementwise kernels bind float16 tensors as array<f16> instead of packed words.
import { describe, expect, it } from 'vitest';

import { LAVAPIPE_ICD, useLavapipe } from '../support/lavapipe.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

const lavapipe = useLavapipe();
if (!lavapipe && REQUIRE_WEBGPU)
  throw new Error(`no shader-f16 adapter: ${LAVAPIPE_ICD} is missing; run scripts/install-lavapipe.sh`);

describe.skipIf(!lavapipe)('shader-f16 on lavapipe', async () => {
  const { call, initWebGpu, tensor } = await import('../../runtime/src/index.ts');

  it('the adapter offers shader-f16 and the device enables it', async () => {
    const gpu = (await initWebGpu())!;
    expect(gpu.info.backend).toBe('vulkan');
    expect(gpu.info.featureLevel).toBe('core');
    expect(gpu.hasF16).toBe(true);
  });

  it('elementwise float16 kernels bind array<f16>: one invocation per element, bit-exact with the CPU', async () => {
    const gpu = (await initWebGpu())!;
    // Odd length, a tie that rounds to even, values that overflow to inf and underflow to subnormals.
    const a = tensor([1, 2049, 65504, -3.5, 6e-8, 0.1, 7], { dtype: 'float16' });
    const b = tensor([2, 1, 32, 0.25, 6e-8, 0.2, -7], { dtype: 'float16' });
    const cpu = call('add', [a, b]) as import('../../runtime/src/index.ts').Tensor;
    const [ga, gb] = [await a.to('webgpu'), await b.to('webgpu')];
    const before = gpu.pipelines.dispatches;
    const sum = call('add', [ga, gb]) as import('../../runtime/src/index.ts').Tensor;
    expect(gpu.pipelines.dispatches - before).toBe(1);
    expect(sum.dtype).toBe('float16');
    expect(Array.from(await sum.data())).toEqual(Array.from(cpu.dataSync()));
    expect(
      gpu.pipelines.compiledPipelineKeys().some((k) => k.startsWith('webgpu:add|float16,float16>f16 shader-f16')),
    ).toBe(true);
    expect(gpu.uncapturedErrors).toEqual([]);
  });
});

// The same tests as on the packed path: every cast, widened ops, leaks, and AutoCast's network.
if (lavapipe) {
  await import('./webgpu-float16.test.ts');
  await import('./webgpu-autocast.test.ts');
}
