// The WebGPU dialect's asynchronous initialization, and why it cannot run when there is no adapter (index.ts registers it).

import { acquireGpu, currentGpu, gpuUnavailableReason, type GpuContext } from './device.ts';

export const WEBGPU_DIALECT = 'webgpu';

let initialized = false;
let warned = false;

/**
 * Acquires the device (memoized; acquiring is asynchronous, dispatch is not, so call this before using
 * `withDialect(['webgpu'], ...)`; `await t.to('webgpu')` calls it for you). Resolves to null when there is no
 * adapter: ops on CPU tensors keep running on the CPU dialect, and the reason is logged once.
 */
export async function initWebGpu(): Promise<GpuContext | null> {
  const gpu = await acquireGpu();
  initialized = true;
  if (!gpu && !warned) {
    warned = true;
    console.warn(`[raf-op webgpu] no WebGPU device, ops stay on the CPU dialect: ${gpuUnavailableReason()}`);
  }
  return gpu;
}

/** Why the dialect cannot run now; undefined once a device is acquired. */
export function webgpuUnavailable(): string | undefined {
  if (currentGpu()) return undefined;
  if (!initialized)
    return "WebGPU is not initialized; call `await initWebGpu()` (or move a tensor with `await t.to('webgpu')`) first";
  return gpuUnavailableReason() ?? 'the WebGPU device was released or lost; call `await initWebGpu()` again';
}

/** The device kernels run on; throws the reason it is missing (dispatch reports it among the dialects tried). */
export function requireGpu(): GpuContext {
  const gpu = currentGpu();
  if (!gpu) throw new Error(`WebGPU unavailable: ${webgpuUnavailable()}`);
  return gpu;
}
