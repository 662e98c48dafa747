// One WebGPU device for a test file: created before its tests, released after them, and `needGpu(ctx)` in each test
// that must run on it (skips without an adapter, or fails where RAF_REQUIRE_WEBGPU / CI says WebGPU must run).
import { afterAll, beforeAll } from 'vitest';

import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from './webgpu-cases.ts';

export function useWebGpu(): (ctx: { skip: (why: string) => void }) => GpuContext {
  let gpu: GpuContext | null = null;
  beforeAll(async () => {
    gpu = await initWebGpu();
  });
  afterAll(async () => {
    await releaseGpu();
  });
  return (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
    }
    return gpu!;
  };
}
