// Checks the WebGPU substrate end to end on whatever adapter this machine has (Mesa llvmpipe when there is no GPU).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  acquireGpu,
  BufferUsage,
  gpuUnavailableReason,
  releaseGpu,
  sizeClass,
  TENSOR_USAGE,
  workgroupGrid,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';

// CI and RAF_REQUIRE_WEBGPU=1 turn a missing adapter into a failure: there the install script must have run.
const REQUIRE_GPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';

const WG = 64;
// One pipeline for every length: n comes from the uniform, the grid may be 2-D (see workgroupGrid).
const ADD_WGSL = /* wgsl */ `
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(${WG})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * ${WG}u;
  if (i >= params.n) { return; }
  out[i] = a[i] + b[i];
}
`;

let gpu: GpuContext | null = null;

beforeAll(async () => {
  const t0 = performance.now();
  gpu = await acquireGpu();
  const ms = performance.now() - t0;
  if (gpu) {
    console.log(
      `[webgpu] adapter: backend=${gpu.info.backend} featureLevel=${gpu.info.featureLevel} ` +
        `device="${gpu.info.device}" description="${gpu.info.description}" ` +
        `f16=${gpu.hasF16} acquire=${ms.toFixed(0)}ms`,
    );
  } else {
    console.log(`[webgpu] no adapter: ${gpuUnavailableReason()}`);
  }
});

// Dropping the Dawn instance lets the worker exit promptly.
afterAll(async () => {
  await releaseGpu();
});

describe('webgpu device', () => {
  it('acquires an adapter (required under CI / RAF_REQUIRE_WEBGPU=1)', (ctx) => {
    if (!gpu) {
      if (REQUIRE_GPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return;
    }
    expect(gpu.info.limits.maxComputeWorkgroupsPerDimension).toBeGreaterThan(0);
    expect(gpu.device.limits.maxStorageBuffersPerShaderStage).toBeGreaterThanOrEqual(4);
    expect(Array.isArray(gpu.info.features)).toBe(true);
  });

  it('memoizes the context', async (ctx) => {
    if (!gpu) return ctx.skip(String(gpuUnavailableReason()));
    expect(await acquireGpu()).toBe(gpu);
  });

  it('adds two float32 arrays like a CPU loop, compiling once for two lengths', async (ctx) => {
    if (!gpu) return ctx.skip(String(gpuUnavailableReason()));
    const { pool, pipelines } = gpu;
    const before = pipelines.compiledPipelineCount();
    const baselineLive = pool.liveBufferCount();

    for (const n of [1000, 37]) {
      const a = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 3);
      const b = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
      const expected = new Float32Array(n);
      for (let i = 0; i < n; i++) expected[i] = a[i]! + b[i]!;

      const pipeline = await pipelines.getPipeline('test.add.f32', () => ADD_WGSL);
      const ba = pool.upload(a);
      const bb = pool.upload(b);
      const bo = pool.acquire(n * 4);
      pipelines.dispatch({
        pipeline,
        buffers: [ba, bb, bo],
        uniforms: new Uint32Array([n]),
        workgroups: workgroupGrid(n, WG),
      });
      const got = await pool.readback(bo, Float32Array, n);
      expect(got).toEqual(expected);
      for (const buf of [ba, bb, bo]) pool.release(buf);
    }

    expect(pipelines.compiledPipelineCount() - before).toBe(1);
    expect(pool.liveBufferCount()).toBe(baselineLive);
    expect(gpu.uncapturedErrors).toEqual([]);
  });

  it('returns pool counts to baseline after 1000 acquire/release cycles', (ctx) => {
    if (!gpu) return ctx.skip(String(gpuUnavailableReason()));
    const { pool } = gpu;
    const live0 = pool.liveBufferCount();
    const sizes = [4, 1000, 4000, 4096, 5000, 65536];
    // Warm every size class the loop uses (s, s+1, s+2) so the steady state should create nothing new.
    for (let k = 0; k < 3; k++) for (const b of sizes.map((s) => pool.acquire(s + k))) pool.release(b);
    const pooled0 = pool.pooledBufferCount();
    const created0 = pool.stats().created;

    for (let i = 0; i < 1000; i++) {
      const held = sizes.map((s) => pool.acquire(s + (i % 3)));
      expect(pool.liveBufferCount()).toBe(live0 + sizes.length);
      for (const b of held) pool.release(b);
    }

    expect(pool.liveBufferCount()).toBe(live0);
    expect(pool.pooledBufferCount()).toBe(pooled0);
    expect(pool.stats().created).toBe(created0);
    const b = pool.acquire(16);
    pool.release(b);
    expect(() => pool.release(b)).toThrow(/not live/);
  });

  it('leaks no buffers across 1000 dispatches with uniforms', async (ctx) => {
    if (!gpu) return ctx.skip(String(gpuUnavailableReason()));
    const { pool, pipelines } = gpu;
    const pipeline = await pipelines.getPipeline('test.add.f32', () => ADD_WGSL);
    const live0 = pool.liveBufferCount();
    const n = 256;
    const ba = pool.upload(new Float32Array(n).fill(1));
    const bb = pool.upload(new Float32Array(n).fill(2));
    for (let i = 0; i < 1000; i++) {
      const bo = pool.acquire(n * 4);
      pipelines.dispatch({
        pipeline,
        buffers: [ba, bb, bo],
        uniforms: new Uint32Array([n]),
        workgroups: workgroupGrid(n, WG),
      });
      pool.release(bo);
    }
    const bo = pool.acquire(n * 4);
    pipelines.dispatch({
      pipeline,
      buffers: [ba, bb, bo],
      uniforms: new Uint32Array([n]),
      workgroups: workgroupGrid(n, WG),
    });
    expect(await pool.readback(bo, Float32Array, n)).toEqual(new Float32Array(n).fill(3));
    for (const buf of [ba, bb, bo]) pool.release(buf);
    expect(pool.liveBufferCount()).toBe(live0);
    expect(gpu.uncapturedErrors).toEqual([]);
  });

  it('reads back odd byte lengths, offsets and other element types', async (ctx) => {
    if (!gpu) return ctx.skip(String(gpuUnavailableReason()));
    const { pool } = gpu;
    const bytes = Uint8Array.from({ length: 7 }, (_, i) => 250 + i);
    const bb = pool.upload(bytes);
    expect(await pool.readback(bb, Uint8Array, 7)).toEqual(bytes);
    pool.release(bb);

    const ints = Int32Array.from({ length: 100 }, (_, i) => i * -7);
    const bi = pool.upload(ints, TENSOR_USAGE | BufferUsage.COPY_SRC);
    expect(await pool.readback(bi, Int32Array, 10, 40 * 4)).toEqual(ints.slice(40, 50));
    pool.release(bi);

    const z = pool.acquireZeroed(64);
    expect(await pool.readback(z, Float32Array, 16)).toEqual(new Float32Array(16));
    pool.release(z);
  });

  it('reports WGSL compile errors and does not cache them', async (ctx) => {
    if (!gpu) return ctx.skip(String(gpuUnavailableReason()));
    const { pipelines } = gpu;
    const bad = '@compute @workgroup_size(1) fn main() { let x: u32 = "nope"; }';
    const errors0 = gpu.uncapturedErrors.length;
    await expect(pipelines.getPipeline('test.bad', () => bad)).rejects.toThrow(/test\.bad[\s\S]*invalid character/);
    expect(pipelines.peekPipeline('test.bad')).toBeUndefined();
    // The error went into the rejection, not to the device's uncaptured-error stream.
    expect(gpu.uncapturedErrors.length).toBe(errors0);
    await expect(pipelines.getPipeline('test.bad', () => bad)).rejects.toThrow();
    expect(pipelines.cachedPipelineCount()).toBe(1);
  });
});

describe('size classes', () => {
  it('rounds up to 4 classes per power of two with a 256 B floor', () => {
    expect(sizeClass(0)).toBe(256);
    expect(sizeClass(256)).toBe(256);
    expect(sizeClass(257)).toBe(320);
    expect(sizeClass(4000)).toBe(4096);
    expect(sizeClass(5000)).toBe(5120);
    for (let s = 1; s < 1 << 20; s = Math.ceil(s * 1.37)) {
      const c = sizeClass(s);
      expect(c).toBeGreaterThanOrEqual(s);
      expect(c % 4).toBe(0);
      if (s > 256) expect(c / s).toBeLessThanOrEqual(1.25);
    }
  });

  it('splits large grids under the per-dimension limit', () => {
    expect(workgroupGrid(1000, 64)).toEqual([16, 1, 1]);
    const [x, y] = workgroupGrid(70000 * 64, 64);
    expect(x).toBeLessThanOrEqual(65535);
    expect(x * y).toBeGreaterThanOrEqual(70000);
  });
});
