// The repository's op suites run the generated NaN/±inf case (generators/src/testing/non-finite.ts, shared with a
// package's suites) on the runtime's sources, acquiring the WebGPU device the suite's WebGPU block then shares.

import { call, initWebGpu, tensor, withDialect } from '../../runtime/src/index.ts';
import { gpuUnavailableReason, type GpuContext } from '../../runtime/src/dialects/webgpu/index.ts';
import { nonFiniteSuite, type NonFiniteCases } from '../../generators/src/testing/non-finite.ts';
import { REQUIRE_WEBGPU } from './webgpu-cases.ts';

export type { NonFiniteCases } from '../../generators/src/testing/non-finite.ts';

/**
 * The describe block of one op's generated NaN/±inf case. It must be registered before the suite's WebGPU block: it
 * shares that block's device (acquired once, released by the WebGPU block's afterAll), since kernels built on a device
 * are kept by the dispatcher and a device released and acquired again in between would leave them stale.
 */
export function nonFiniteCases(op: string, dialects: readonly string[], s: NonFiniteCases): void {
  let gpu: GpuContext | null = null;
  nonFiniteSuite(op, dialects, s, {
    call,
    tensor,
    withDialect,
    acquireGpu: async () => {
      gpu = await initWebGpu();
    },
    needGpu: (ctx) => {
      if (gpu) return;
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
    },
  });
}
