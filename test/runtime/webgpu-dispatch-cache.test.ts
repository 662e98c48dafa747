// What a WebGPU dispatch keeps between calls: uniform slots by content and bind groups by pipeline and buffers (so a
// repeated call writes no uniforms and creates no bind group), with the slots started over safely inside an open
// batch; and what reshape-like ops keep: a view of their input's buffer instead of a copy.
import { describe, expect, it } from 'vitest';

import { gpuSync, ops, randomUniform, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import type { GpuContext } from '../../runtime/src/dialects/webgpu/index.ts';
import { buildDialectKernel, dialectOpsFor } from '../../runtime/src/dialect.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

/** Counts the device's createBindGroup and the queue's writeBuffer calls while `fn` runs. */
function counted<R>(g: GpuContext, fn: () => R): { result: R; bindGroups: number; writes: number } {
  const device = g.device as { createBindGroup: GPUDevice['createBindGroup'] };
  const queue = g.device.queue as { writeBuffer: GPUQueue['writeBuffer'] };
  const [create, write] = [device.createBindGroup, queue.writeBuffer];
  let [bindGroups, writes] = [0, 0];
  device.createBindGroup = (d) => (bindGroups++, create.call(g.device, d));
  queue.writeBuffer = (...a) => (writes++, write.apply(g.device.queue, a));
  try {
    return { result: fn(), bindGroups, writes };
  } finally {
    device.createBindGroup = create;
    queue.writeBuffer = write;
  }
}

const tanhOf = (xs: Float32Array | number[]): number[] => Array.from(xs, (v) => Math.tanh(v));

describe('webgpu dispatch caches', () => {
  it('a repeated call writes no uniforms and creates no bind group', async (ctx) => {
    const g = needGpu(ctx);
    const x = await randomUniform([3, 7], { seed: 1 }).to('webgpu');
    const want = tanhOf(randomUniform([3, 7], { seed: 1 }).dataSync() as Float32Array);
    // Warm-up: the pipeline, its uniform slot and a bind group for x and the output buffer the pool hands out.
    for (let i = 0; i < 3; i++) withDialect(['webgpu'], () => ops.tanh(x)).dispose();
    await gpuSync();
    const { result, bindGroups, writes } = counted(g, () =>
      withDialect(['webgpu'], () => {
        let last: Tensor | null = null;
        for (let i = 0; i < 50; i++) {
          last?.dispose();
          last = ops.tanh(x);
        }
        return last!;
      }),
    );
    expect(writes).toBe(0);
    expect(bindGroups).toBeLessThanOrEqual(2);
    Array.from(await result.data()).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
    result.dispose();
    x.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });

  it('starts the uniform slots over past maxUniformSlots, within an open batch', async (ctx) => {
    const g = needGpu(ctx);
    // Tensors of 40 lengths: each tanh's uniform block (its length) is new, so the slots start over ten times.
    const xs = await Promise.all(
      Array.from({ length: 40 }, (_, n) => tensor(Array.from({ length: n + 1 }, (_, i) => i / 8 - 1)).to('webgpu')),
    );
    const saved = g.pool.maxUniformSlots;
    g.pool.maxUniformSlots = 4;
    let ys: Tensor[];
    try {
      ys = withDialect(['webgpu'], () => xs.map((x) => ops.tanh(x)));
    } finally {
      g.pool.maxUniformSlots = saved;
    }
    for (const [n, y] of ys.entries()) {
      const want = tanhOf(Array.from({ length: n + 1 }, (_, i) => i / 8 - 1));
      Array.from(await y.data()).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
    }
    for (const t of [...xs, ...ys]) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });
});

describe('webgpu elementwise kernels', () => {
  it('redo their plan when the shapes or attr values change from the last call', async (ctx) => {
    needGpu(ctx);
    const cpu = (f: () => Tensor): number[] => Array.from(withDialect(['cpu'], f).dataSync());
    const [a, b, c] = [
      randomUniform([2, 3], { seed: 1 }),
      randomUniform([2, 3], { seed: 2 }),
      randomUniform([1, 3], { seed: 3 }),
    ];
    const [d, e] = [randomUniform([3, 2], { seed: 4 }), randomUniform([3, 2], { seed: 5 })];
    const [ga, gb, gc, gd, ge] = await Promise.all([a, b, c, d, e].map((t) => t.to('webgpu')));
    // The same kernels called in turn with other shapes (same, broadcast, transposed) and other attr values.
    const calls: [() => Tensor, () => Tensor][] = [
      [() => ops.add(ga!, gb!), () => ops.add(a, b)],
      [() => ops.add(ga!, gc!), () => ops.add(a, c)],
      [() => ops.add(gd!, ge!), () => ops.add(d, e)],
    ];
    for (let round = 0; round < 2; round++)
      for (const [gpuCall, cpuCall] of calls) {
        const y = withDialect(['webgpu'], gpuCall);
        Array.from(await y.data()).forEach((v, i) => expect(v).toBeCloseTo(cpu(cpuCall)[i]!, 6));
        y.dispose();
      }
    // Dispatch builds a kernel per attr value, so only a direct caller hands one kernel other attrs: it still applies them.
    const d0 = dialectOpsFor('leaky_relu', 'webgpu')[0]!;
    const out = { shape: [2, 3], dtype: 'float32' as const };
    const kernel = buildDialectKernel(d0, { alpha: 0.1 }, out, { x: ga! }) as unknown as (
      i: { x: Tensor },
      a: { alpha: number },
      o: typeof out,
    ) => Tensor;
    for (const alpha of [0.1, 0.3, 0.1]) {
      const y = kernel({ x: ga! }, { alpha }, out);
      const want = Array.from(a.dataSync(), (v) => (v >= 0 ? v : alpha * v));
      Array.from(await y.data()).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
      y.dispose();
    }
  });
});

describe('webgpu window kernels', () => {
  it('redo their uniform block when one attrs object comes with other shapes', async (ctx) => {
    needGpu(ctx);
    // One attrs object, as a graph step passes on every run, here with two image sizes in turn;
    // both launch 10 invocations (blocks of four channels by four columns), so only the shapes tell them apart.
    const attrs = { stride: [1, 1], padding: [1, 1, 1, 1], dilation: [1, 1], groups: 1 };
    const d0 = dialectOpsFor('conv2d', 'webgpu')[0]!;
    const cases = [
      [randomUniform([1, 2, 5, 6], { seed: 1 }), randomUniform([4, 2, 3, 3], { seed: 2 })],
      [randomUniform([1, 2, 10, 3], { seed: 3 }), randomUniform([4, 2, 3, 3], { seed: 4 })],
    ] as const;
    type Conv = (i: { x: Tensor; w: Tensor }, a: typeof attrs, o: { shape: number[]; dtype: 'float32' }) => Tensor;
    let kernel: Conv | null = null;
    for (let round = 0; round < 2; round++)
      for (const [x, w] of cases) {
        const want = withDialect(['cpu'], () => ops.conv2d(x, w, [1, 1], [1, 1, 1, 1]));
        const out = { shape: [...want.shape], dtype: 'float32' as const };
        const [gx, gw] = [await x.to('webgpu'), await w.to('webgpu')];
        kernel ??= buildDialectKernel(d0, attrs, out, { x: gx, w: gw }) as unknown as Conv;
        const y = kernel({ x: gx, w: gw }, attrs, out);
        const expected = Array.from(want.dataSync());
        Array.from(await y.data()).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 5));
        for (const t of [y, gx, gw]) t.dispose();
      }
  });
});

describe('webgpu views', () => {
  it('reshape, expand_dims, squeeze and flatten share their input buffer, which lives while any of them does', async (ctx) => {
    const g = needGpu(ctx);
    const values = Array.from({ length: 24 }, (_, i) => i * 0.5 - 3);
    const x = await tensor(values, { shape: [2, 3, 4] }).to('webgpu');
    await gpuSync();
    const live = g.pool.liveBufferCount();
    const [r, e, s, f] = withDialect(['webgpu'], () => {
      const r = ops.reshape(x, [6, 4]);
      const e = ops.expandDims(r, 0);
      const s = ops.squeeze(e, [0]);
      const f = ops.flatten(x, 1);
      return [r, e, s, f];
    });
    // Four new tensors, no new buffer and nothing encoded.
    expect(g.pool.liveBufferCount()).toBe(live);
    expect([r.shape, e.shape, s.shape, f.shape]).toEqual([
      [6, 4],
      [1, 6, 4],
      [6, 4],
      [2, 12],
    ]);
    // The input and two of its views go; the rest still read the data, and a kernel still reads a view.
    x.dispose();
    r.dispose();
    e.dispose();
    expect(g.pool.liveBufferCount()).toBe(live);
    expect(Array.from(await s.data())).toEqual(values);
    const t = withDialect(['webgpu'], () => ops.tanh(f));
    Array.from(await t.data()).forEach((v, i) => expect(v).toBeCloseTo(Math.tanh(values[i]!), 6));
    t.dispose();
    s.dispose();
    expect(g.pool.liveBufferCount()).toBe(live);
    // The last holder returns the buffer; disposing a tensor twice does not return it twice.
    f.dispose();
    f.dispose();
    expect(g.pool.liveBufferCount()).toBe(live - 1);
    expect(() => withDialect(['webgpu'], () => ops.tanh(s))).toThrow(/disposed/);
    expect(g.uncapturedErrors).toEqual([]);
  });
});
