// WebGPU submissions are batched: the passes of one task share a command buffer (BufferPool.encoder), and a buffer
// released while its batch is open never takes an upload before that batch is submitted.
import { describe, expect, it } from 'vitest';

import { gpuSync, ops, tensor, withDialect } from '../../runtime/src/index.ts';
import { BATCH_PASSES } from '../../runtime/src/dialects/webgpu/buffers.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

describe('webgpu batches', () => {
  it('submits the passes of one task together, at most BATCH_PASSES at a time', async (ctx) => {
    const g = needGpu(ctx);
    const x = await tensor([0.5, -1, 2, 3]).to('webgpu');
    await gpuSync();
    const [d0, s0] = [g.pipelines.dispatches, g.pool.submissions];
    let y = x;
    withDialect(['webgpu'], () => {
      for (let i = 0; i < 200; i++) {
        const next = ops.tanh(y);
        if (y !== x) y.dispose();
        y = next;
      }
    });
    const got = await y.data();
    expect(g.pipelines.dispatches - d0).toBe(200);
    // 200 passes: three full batches, the rest at the end of the task, and the read's copy (one submission each
    // before batching).
    expect(g.pool.submissions - s0).toBeLessThanOrEqual(Math.ceil(200 / BATCH_PASSES) + 1);
    const want = [0.5, -1, 2, 3].map((v) => {
      for (let i = 0; i < 200; i++) v = Math.tanh(v);
      return v;
    });
    for (const [i, v] of want.entries()) expect(got[i]).toBeCloseTo(v, 5);
    for (const t of [x, y]) t.dispose();
  });

  it('never uploads into a buffer released in the open batch before the passes that read it have run', async (ctx) => {
    const g = needGpu(ctx);
    const x = await tensor([0.25]).to('webgpu');
    await gpuSync();
    const [a, b, c] = withDialect(['webgpu'], () => {
      const a = ops.exp(x); // pass 1 writes a's buffer
      const b = ops.negative(a); // pass 2 reads it
      a.dispose(); // released while both passes wait in the batch
      // The scalar is uploaded now, into a buffer of a's size class: it must not be a's.
      const c = ops.add(x, 5);
      return [a, b, c];
    });
    expect(a.isDisposed).toBe(true);
    expect((await b.data())[0]).toBeCloseTo(-Math.exp(0.25), 6);
    expect((await c.data())[0]).toBeCloseTo(5.25, 6);
    for (const t of [x, b, c]) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });
});
