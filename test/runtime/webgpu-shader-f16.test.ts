// The float16 suites again on an adapter with shader-f16 (lavapipe through Dawn's Vulkan backend), where elementwise
// kernels and the matrix products (matmul, matmul_nt/_tn, batch_matmul, dense) bind float16 tensors as array<f16>
// instead of packed words or casts around a float32 kernel.
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

describe.skipIf(!lavapipe)('float16 matrix products on shader-f16', async () => {
  const { call, initWebGpu, randomUniform } = await import('../../runtime/src/index.ts');
  type T = import('../../runtime/src/index.ts').Tensor;
  const half = (shape: number[], seed: number) =>
    call('cast', [randomUniform(shape, { seed, low: -1, high: 1 }), 'float16']) as T;

  // 33×47 · 47×29 takes the 16×16 pipeline; 260×16 · 16×1024 (over 2^18 outputs) the blocked one.
  it.each([
    ['matmul', [33, 47], [47, 29]],
    ['matmul', [260, 16], [16, 1024]],
    ['matmul_nt', [40, 24], [36, 24]],
    ['batch_matmul', [3, 17, 9], [3, 9, 21]],
  ] as const)(
    '%s %j · %j: one kernel on array<f16>, the bits of the float32 kernel between casts',
    async (op, sa, sb) => {
      const gpu = (await initWebGpu())!;
      const [a, b] = [half([...sa], 5), half([...sb], 6)];
      const [ga, gb] = [await a.to('webgpu'), await b.to('webgpu')];
      const before = gpu.pipelines.dispatches;
      const native = call(op, [ga, gb]) as T;
      expect(gpu.pipelines.dispatches - before, 'dispatches').toBe(1);
      expect(native.dtype).toBe('float16');
      // The float32 kernel between casts: the same sums in the same order, rounded once at the end.
      const wide = call(op, [call('cast', [ga, 'float32']), call('cast', [gb, 'float32'])]) as T;
      const narrowed = call('cast', [wide, 'float16']) as T;
      const got = Array.from(await native.data());
      expect(got).toEqual(Array.from(await narrowed.data()));
      // And the CPU's float16 product, within one float16 rounding.
      const cpu = Array.from((call(op, [a, b]) as T).dataSync());
      got.forEach((v, i) =>
        expect(Math.abs(v - cpu[i]!), `element ${i}`).toBeLessThanOrEqual(2 ** -9 * (1 + Math.abs(cpu[i]!))),
      );
      expect(gpu.pipelines.compiledPipelineKeys().some((k) => k.includes('matrix_product') && k.includes('f16'))).toBe(
        true,
      );
      expect(gpu.uncapturedErrors).toEqual([]);
    },
  );

  it('dense (x · wᵀ + b) in float16: one kernel, the bias added before the one rounding', async () => {
    const gpu = (await initWebGpu())!;
    const [x, w, b] = [half([19, 33], 7), half([25, 33], 8), half([25], 9)];
    const [gx, gw, gb] = await Promise.all([x.to('webgpu'), w.to('webgpu'), b.to('webgpu')]);
    const before = gpu.pipelines.dispatches;
    const native = call('dense', [gx, gw, gb]) as T;
    expect(gpu.pipelines.dispatches - before).toBe(1);
    const f32 = (t: T) => call('cast', [t, 'float32']) as T;
    const wide = call('cast', [call('dense', [f32(gx), f32(gw), f32(gb)]) as T, 'float16']) as T;
    expect(Array.from(await native.data())).toEqual(Array.from(await wide.data()));
    expect(gpu.uncapturedErrors).toEqual([]);
  });
});

// The same tests as on the packed path: every cast, widened ops, leaks, and AutoCast's network.
if (lavapipe) {
  await import('./webgpu-float16.test.ts');
  await import('./webgpu-autocast.test.ts');
}
