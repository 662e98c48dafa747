// Index bounds on every dialect with the CPU's error: take, embedding, nll_loss and cross_entropy refuse an
// out-of-range index on WebGPU too, before dispatch for indices uploaded from the CPU, and when the result is read
// for indices computed on the GPU.
import { describe, expect, it } from 'vitest';

import { ops, randomUniform, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

const int = (v: number[]) => tensor(v, { dtype: 'int32' });
const x = randomUniform([3, 4], { seed: 1 });

/** Each call with an index out of range: the op, the data tensor, the indices. */
const CASES: [string, (data: Tensor, idx: Tensor) => Tensor, Tensor, number[]][] = [
  ['take', (d, i) => ops.take(d, i, 1), x, [0, 4]],
  ['take (negative)', (d, i) => ops.take(d, i, 0), x, [-4]],
  ['embedding', (d, i) => ops.embedding(d, i), x, [1, 3]],
  ['nll_loss', (d, i) => ops.nllLoss(d, i), x, [0, 4, 1]],
  ['cross_entropy', (d, i) => ops.crossEntropy(d, i), x, [0, 1, -1]],
];

/** The CPU's message for the call. */
function cpuError(f: () => unknown): string {
  try {
    withDialect(['cpu'], f);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the CPU accepted an out-of-range index');
}

describe('out-of-range indices on WebGPU raise the CPU error', () => {
  it.for(CASES)('%s, indices uploaded from the CPU: refused before dispatch', async ([, f, data, idx], ctx) => {
    const want = cpuError(() => f(data, int(idx)));
    expect(want).toMatch(/out of range|outside \[0,/);
    const { pool } = needGpu(ctx);
    const [dg, ig] = [await data.to('webgpu'), await int(idx).to('webgpu')];
    const live = pool.liveBufferCount();
    expect(() => withDialect(['webgpu'], () => f(dg, ig))).toThrow(want);
    // The result's buffer went back: nothing leaked by the refusal.
    expect(pool.liveBufferCount()).toBe(live);
  });

  it.for(CASES)('%s, indices computed on the GPU: refused when the result is read', async ([, f, data, idx], ctx) => {
    const want = cpuError(() => f(data, int(idx)));
    needGpu(ctx);
    const dg = await data.to('webgpu');
    // The same indices, made by a GPU kernel (cast from float32), so no CPU copy of their values exists.
    const up = await tensor(idx).to('webgpu');
    const computed = withDialect(['webgpu'], () => ops.cast(up, 'int32'));
    const y = withDialect(['webgpu'], () => f(dg, computed));
    await expect(y.data()).rejects.toThrow(want);
    // What is computed from that result inherits the check: reading it fails with the same error.
    const z = withDialect(['webgpu'], () => ops.exp(ops.multiply(y, y)));
    await expect(z.data()).rejects.toThrow(want);
  });
});

describe('in-range indices still give the CPU result on WebGPU', () => {
  it('take with negative indices, embedding, nll_loss and cross_entropy', async (ctx) => {
    needGpu(ctx);
    const calls: ((d: Tensor, i: Tensor) => Tensor)[] = [
      (d, i) => ops.take(d, i, 1),
      (d, i) => ops.embedding(d, i),
      (d, i) => ops.nllLoss(d, i),
      (d, i) => ops.crossEntropy(d, i),
    ];
    const idx = [2, -1, 0];
    const targets = [2, 3, 0];
    for (const [k, f] of calls.entries()) {
      const i = k === 0 ? idx : k === 1 ? [2, 0, 1] : targets;
      const want = Array.from(withDialect(['cpu'], () => f(x, int(i))).dataSync());
      const [xg, ig] = [await x.to('webgpu'), await int(i).to('webgpu')];
      const got = Array.from(await withDialect(['webgpu'], () => f(xg, ig)).data());
      got.forEach((v, j) => expect(v).toBeCloseTo(want[j]!, 4));
    }
  });
});
