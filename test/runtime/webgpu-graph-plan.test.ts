// Execution plans on WebGPU: a graph moved to the GPU records its kernels on the first run and calls them directly on
// later runs, agreeing with the dispatched executor and a float64 reference, keeping the caller's inputs and returned
// views intact, and passing on the index checks that GPU kernels only settle after dispatch.
import { describe, expect, it } from 'vitest';

import { ops, randomUniform, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { execute, executeUnplanned, moveGraph, planStats, trace } from '../../runtime/src/graph/index.ts';
import { expectClose } from '../support/reference.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();
const spec = (name: string, shape: number[]) => ({ name, shape, dtype: 'float32' as const });
const read = async (t: Tensor): Promise<number[]> => Array.from(await t.data());

describe('execution plans on WebGPU', () => {
  it('agree with the dispatched executor and a float64 reference, run after run', async (ctx) => {
    const { pool } = needGpu(ctx);
    const [m, k] = [5, 7];
    const w = randomUniform([k, k], { low: -1, high: 1, seed: 3 });
    // a = exp(x) feeds three later nodes; a reshape and a squeeze sit between kernels.
    const f = (x: Tensor): Tensor[] => {
      const a = ops.exp(x);
      const c = ops.add(ops.matmul(x, w), 1);
      const d = ops.relu(ops.subtract(ops.multiply(a, 2), 3));
      const r = ops.squeeze(ops.reshape(ops.multiply(d, c), [1, m, k]), [0]);
      return [ops.add(r, a), ops.sum(a, [1])];
    };
    const g = await moveGraph(trace(f, [spec('x', [m, k])]), 'webgpu');
    const xs = randomUniform([m, k], { low: -1, high: 1, seed: 4 });
    const [xv, wv] = [Array.from(xs.dataSync()), Array.from(w.dataSync())];
    const ref: number[][] = [[], []];
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < k; j++) {
        let mm = 0;
        for (let t = 0; t < k; t++) mm += xv[i * k + t]! * wv[t * k + j]!;
        const a = Math.exp(xv[i * k + j]!);
        ref[0]!.push(Math.max(2 * a - 3, 0) * (mm + 1) + a);
        s += a;
      }
      ref[1]!.push(s);
    }
    const x = await xs.to('webgpu');
    const before = planStats();
    const first = execute(g, [x]);
    expect(planStats().plans).toBe(before.plans + 1);
    const firstValues = await Promise.all(first.map(read));
    const live = pool.liveBufferCount();
    for (let run = 0; run < 3; run++) {
      const launches = planStats().launches;
      const outs = execute(g, [x]);
      // Every call ran as a planned kernel launch, the plan was not recorded again, and only the outputs are new.
      expect(planStats().launches - launches).toBe(g.nodes.length);
      expect(planStats().plans).toBe(before.plans + 1);
      expect(pool.liveBufferCount() - live).toBe(outs.length);
      for (const [i, t] of outs.entries()) expectClose(await read(t), ref[i]!, 1e-5);
      outs.forEach((t) => t.dispose());
    }
    // The first run's outputs were not overwritten by buffers later runs reused; the dispatched executor agrees.
    for (const [i, t] of first.entries()) expect(await read(t)).toEqual(firstValues[i]);
    const unplanned = executeUnplanned(g, [x]);
    for (const [i, t] of unplanned.entries()) expect(await read(t)).toEqual(firstValues[i]);
    expect(await read(x)).toEqual(Array.from(xs.dataSync()));
  });

  it('returns a view of the input that the caller may dispose without touching the input', async (ctx) => {
    needGpu(ctx);
    const g = await moveGraph(
      trace((x: Tensor) => [ops.reshape(x, [6]), ops.tanh(x)], [spec('x', [2, 3])]),
      'webgpu',
    );
    const values = [0.5, -1, 2, 0, 1.5, -0.25];
    const x = await tensor(values, { shape: [2, 3] }).to('webgpu');
    for (let run = 0; run < 3; run++) {
      const [r, t] = execute(g, [x]);
      expect(await read(r!)).toEqual(values);
      expectClose(await read(t!), values.map(Math.tanh), 1e-6);
      r!.dispose();
      t!.dispose();
    }
    expect(await read(x)).toEqual(values);
  });

  it('pass on the index checks GPU kernels settle after dispatch', async (ctx) => {
    needGpu(ctx);
    const data = randomUniform([3, 4], { seed: 1 });
    let want = '';
    try {
      withDialect(['cpu'], () => ops.take(data, tensor([0, 4], { dtype: 'int32' }), 1));
    } catch (e) {
      want = (e as Error).message;
    }
    expect(want).toMatch(/out of range|outside \[0,/);
    // The indices are made on the GPU (a cast from float32), so only the kernel finds them out of range. The first run
    // compiles cast and take: their results wait on those compile checks, and the run frees the indices (after take)
    // before the check reads them, so the check must copy them out at once, not after the wait (it read exp's values
    // from the reused buffer before).
    // The first run records the plan; the later ones run it.
    const f = (d: Tensor, i: Tensor): Tensor => ops.exp(ops.take(d, ops.cast(i, 'int32'), 1));
    const g = await moveGraph(trace(f, [spec('d', [3, 4]), spec('i', [2])]), 'webgpu');
    const [d, bad, good] = await Promise.all([
      data.to('webgpu'),
      tensor([0, 4]).to('webgpu'),
      tensor([3, 1]).to('webgpu'),
    ]);
    for (let run = 0; run < 3; run++) {
      await expect(execute(g, [d, bad])[0]!.data()).rejects.toThrow(want);
      const ok = await read(execute(g, [d, good])[0]!);
      const dv = Array.from(data.dataSync());
      expectClose(
        ok,
        [0, 1, 2].flatMap((r) => [3, 1].map((c) => Math.exp(dv[r * 4 + c]!))),
        1e-6,
      );
    }
  });
});
