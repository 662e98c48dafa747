// Compiled compute-pipeline cache keyed by string, plus the dispatch helper that binds buffers/uniforms and submits.
/// <reference types="@webgpu/types" />

import { alignUp, asBytes, type BufferPool, type BytesLike, type StorageBinding, type UniformSlot } from './buffers.ts';

export type { StorageBinding };

export interface DispatchOptions {
  pipeline: GPUComputePipeline;
  /**
   * Storage buffers bound to @group(0) @binding(0..n-1) in order (inputs first, read_write outputs last).
   * With layout 'auto' every listed binding must be used by the shader, or createBindGroup fails.
   */
  buffers: readonly StorageBinding[];
  /**
   * Shape/stride/length parameters, bound as var<uniform> at @group(0) @binding(buffers.length).
   * Passing these per dispatch (instead of baking them into WGSL) lets one pipeline serve every shape.
   */
  uniforms?: BytesLike;
  /** Workgroup counts; a number means [n, 1, 1]. See workgroupGrid() for counts above 65535. */
  workgroups: number | readonly [number, number?, number?];
  label?: string;
}

/**
 * Caches compiled compute pipelines per device. The key must identify the WGSL source completely (op name,
 * dtype, workgroup size, ...) but not the shapes, which travel in uniforms; the source factory only runs on a miss.
 */
/** Compile checks (see PipelineCache.compiling) that passed: storages holding one drop it. */
export const passedChecks = new WeakSet<Promise<void>>();

export class PipelineCache {
  readonly device: GPUDevice;
  private readonly pool: BufferPool;
  private readonly cache = new Map<string, Promise<GPUComputePipeline>>();
  private readonly ready = new Map<string, GPUComputePipeline>();
  private compiled = 0;
  /** Compute dispatches encoded so far: what fusion tests count, since one graph call may launch several. */
  dispatches = 0;
  /** Every key compiled since creation or clear(), for reporting how many distinct pipelines a run needed. */
  private readonly compiledKeySet = new Set<string>();

  constructor(device: GPUDevice, pool: BufferPool) {
    this.device = device;
    this.pool = pool;
  }

  /**
   * The pipeline for key, compiling makeSource() on first use. Concurrent callers share one compilation.
   * Rejects with the WGSL compiler messages on error, and forgets the key so a fixed source can be retried.
   */
  getPipeline(key: string, makeSource: () => string, entryPoint = 'main'): Promise<GPUComputePipeline> {
    const cacheKey = `${key}#${entryPoint}`;
    let p = this.cache.get(cacheKey);
    if (!p) {
      this.compiled++;
      this.compiledKeySet.add(cacheKey);
      p = this.compile(key, makeSource(), entryPoint).then(
        (pipeline) => {
          this.ready.set(cacheKey, pipeline);
          return pipeline;
        },
        (err: unknown) => {
          this.cache.delete(cacheKey);
          throw err;
        },
      );
      this.cache.set(cacheKey, p);
    }
    return p;
  }

  /**
   * The pipeline for key, compiled synchronously on a miss. Kernels are dispatched synchronously (an op call
   * returns its output tensor at once), so a kernel built on first use cannot await getPipeline(). WGSL errors
   * then arrive asynchronously: they are reported through the error scope (logged, and kept in `errors`) and the
   * key is forgotten so the next build retries.
   */
  getPipelineSync(key: string, makeSource: () => string, entryPoint = 'main'): GPUComputePipeline {
    const cacheKey = `${key}#${entryPoint}`;
    const ready = this.ready.get(cacheKey);
    if (ready) return ready;
    this.compiled++;
    this.compiledKeySet.add(cacheKey);
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: key, code: makeSource() });
    const pipeline = this.device.createComputePipeline({ label: key, layout: 'auto', compute: { module, entryPoint } });
    const check: Promise<void> = this.device.popErrorScope().then((err) => {
      this.compiling.delete(check);
      if (!err) {
        passedChecks.add(check);
        return;
      }
      this.ready.delete(cacheKey);
      this.cache.delete(cacheKey);
      const msg = `WebGPU pipeline "${key}" (entry ${entryPoint}) failed to compile: ${err.message}`;
      this.errors.push(msg);
      console.warn(`[raf-op webgpu] ${msg}`);
      throw new Error(msg);
    });
    check.catch(() => undefined); // reported through the tensors that hold it (see compiling) and `errors`
    this.compiling.add(check);
    this.ready.set(cacheKey, pipeline);
    this.cache.set(cacheKey, Promise.resolve(pipeline));
    return pipeline;
  }

  /** Compile errors reported asynchronously for pipelines made by getPipelineSync(). */
  readonly errors: string[] = [];

  /**
   * The compile checks of getPipelineSync() pipelines not yet known to be valid. A GPU tensor made while one is
   * pending holds it (GpuStorage), so reading what a broken pipeline wrote fails with its error instead of returning
   * whatever the buffer held; tensors computed from it inherit the check through dispatch.
   */
  readonly compiling = new Set<Promise<void>>();

  /** Keys of every pipeline compiled since creation or clear(), sorted. */
  compiledPipelineKeys(): string[] {
    return [...this.compiledKeySet].sort();
  }

  /** The pipeline if it has finished compiling; lets synchronous hot paths skip the await. */
  peekPipeline(key: string, entryPoint = 'main'): GPUComputePipeline | undefined {
    return this.ready.get(`${key}#${entryPoint}`);
  }

  /** How many compilations were started (cache misses) since creation or clear(). */
  compiledPipelineCount(): number {
    return this.compiled;
  }

  cachedPipelineCount(): number {
    return this.ready.size;
  }

  clear(): void {
    this.cache.clear();
    this.ready.clear();
    this.compiled = 0;
    this.compiledKeySet.clear();
  }

  /**
   * Binds buffers (+ uniforms, a slot kept by content) to group 0 through a kept bind group, and encodes the dispatch
   * into the pool's open compute pass (BufferPool.computePass), submitted at the end of the task, when full, or before
   * a read.
   */
  dispatch(opts: DispatchOptions): void {
    const w = opts.workgroups;
    const x = typeof w === 'number' ? w : w[0];
    const y = typeof w === 'number' ? 1 : (w[1] ?? 1);
    const z = typeof w === 'number' ? 1 : (w[2] ?? 1);
    this.checkCount(x);
    this.checkCount(y);
    this.checkCount(z);
    if (x * y * z === 0) return;
    this.dispatches++;

    let uniform: UniformSlot | undefined;
    if (opts.uniforms !== undefined) {
      const bytes = asBytes(opts.uniforms);
      // Uniform bindings are sized in 16-byte units by WGSL's uniform layout rules.
      const bindSize = Math.max(alignUp(bytes.byteLength, 16), 16);
      const padded = bytes.byteLength === bindSize ? bytes : new Uint8Array(bindSize);
      if (padded !== bytes) padded.set(bytes);
      uniform = this.pool.uniformSlot(padded);
    }
    const bindGroup = this.pool.bindGroup(opts.pipeline, opts.buffers, uniform, opts.label);
    const pass = this.pool.computePass();
    pass.setPipeline(opts.pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(x, y, z);
    this.pool.encoded();
  }

  private maxDim = 0;

  /** The device's maxComputeWorkgroupsPerDimension, read once: each read of device.limits is a call into Dawn. */
  get maxWorkgroupsPerDimension(): number {
    return (this.maxDim ||= this.device.limits.maxComputeWorkgroupsPerDimension);
  }

  private checkCount(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`invalid workgroup count ${n}`);
    const maxDim = this.maxWorkgroupsPerDimension;
    if (n > maxDim)
      throw new RangeError(
        `workgroup count ${n} exceeds maxComputeWorkgroupsPerDimension ${maxDim}; use workgroupGrid()`,
      );
  }

  private async compile(key: string, code: string, entryPoint: string): Promise<GPUComputePipeline> {
    // The scope turns the shader module's validation error into data we can attach to the rejection, instead of an
    // uncaptured error. It is popped before any await, so no unrelated GPU call can land in it.
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: key, code });
    // The async variant surfaces pipeline errors as a rejection rather than a later uncaptured error.
    const pipelineP = this.device.createComputePipelineAsync({
      label: key,
      layout: 'auto',
      compute: { module, entryPoint },
    });
    const scopeP = this.device.popErrorScope();
    const [pipeline, scopeError] = await Promise.allSettled([pipelineP, scopeP]);
    if (pipeline.status === 'fulfilled') return pipeline.value;

    const lines: string[] = [];
    if (scopeError.status === 'fulfilled' && scopeError.value) lines.push(scopeError.value.message.trim());
    try {
      const info = await module.getCompilationInfo();
      for (const m of info.messages) lines.push(`${m.type} at ${m.lineNum}:${m.linePos}: ${m.message}`);
    } catch {
      // Compilation info is best effort; the pipeline error below still says what failed.
    }
    const err = pipeline.reason as unknown;
    const msg = err instanceof Error ? err.message : String(err);
    throw new Error(
      `WebGPU pipeline "${key}" (entry ${entryPoint}) failed to compile: ${msg}` +
        (lines.length ? `\n${lines.join('\n')}` : ''),
    );
  }
}

/**
 * Splits `invocations` threads of workgroupSize into a grid that respects the per-dimension limit.
 * Kernels then compute their flat index as gid.x + gid.y * (num_workgroups.x * workgroupSize) and bound-check it.
 */
export function workgroupGrid(
  invocations: number,
  workgroupSize: number,
  maxPerDimension = 65535,
): [number, number, number] {
  const groups = Math.ceil(invocations / workgroupSize);
  if (groups <= maxPerDimension) return [groups, 1, 1];
  const y = Math.ceil(groups / maxPerDimension);
  if (y > maxPerDimension)
    throw new RangeError(`${invocations} invocations need more than ${maxPerDimension}^2 workgroups`);
  return [Math.ceil(groups / y), y, 1];
}
