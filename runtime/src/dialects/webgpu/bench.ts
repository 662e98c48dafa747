// Timing helpers for the bench harness: run an op body N times on the GPU and wait for the queue, not just the submits.

import { Tensor } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';

export interface WebGpuTiming {
  readonly iterations: number;
  /** Wall time per call, including the wait for the GPU to finish everything submitted. */
  readonly msPerCall: number;
  readonly totalMs: number;
  /** Pipelines compiled so far in this process (warm-up included). */
  readonly pipelines: number;
  /** GPU buffers live after the run; equal to the count before when the body disposes what it makes. */
  readonly liveBuffers: number;
}

/** Submits the open batch, then resolves when every command submitted so far has finished on the GPU. */
export async function gpuSync(): Promise<void> {
  const gpu = requireGpu();
  gpu.pool.flush();
  await gpu.device.queue.onSubmittedWorkDone();
}

/**
 * Times `body` (e.g. `() => ops.softmax(x)` under `withDialect(['webgpu'], ...)`, with x already on the GPU).
 * Returned tensors are disposed after each call so the pool reuses their buffers. Warm-up calls compile pipelines.
 */
export async function benchWebGpu(
  body: () => Tensor | readonly Tensor[] | void,
  options: { iterations?: number; warmup?: number } = {},
): Promise<WebGpuTiming> {
  const gpu = requireGpu();
  const iterations = options.iterations ?? 100;
  const run = () => {
    const r = body();
    for (const t of r instanceof Tensor ? [r] : (r ?? [])) t.dispose();
  };
  for (let i = 0; i < (options.warmup ?? 5); i++) run();
  await gpuSync();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) run();
  await gpuSync();
  const totalMs = performance.now() - t0;
  return {
    iterations,
    msPerCall: totalMs / Math.max(iterations, 1),
    totalMs,
    pipelines: gpu.pipelines.compiledPipelineCount(),
    liveBuffers: gpu.pool.liveBufferCount(),
  };
}
