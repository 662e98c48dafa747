// The CPU's answers on NaN and ±inf against literal values (PyTorch's and NumPy's documented behaviour), and numbers
// used with GPU tensors give their temporary buffers back at once. Every dialect against the CPU on NaN and ±inf, and
// the CPU against NumPy's semantics, is the generated case of each reduction, selection, scan and softmax-like op
// (test/generated/NAME.test.ts, generators/src/testing/non-finite.ts).

import { describe, expect, it } from 'vitest';
import { ops, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();
const f32 = (v: number[]) => tensor(v, { dtype: 'float32', shape: [v.length] });

/** Every output of a call, as plain numbers (NaN, ±Infinity kept), each rounded to float32. */
async function read(r: Tensor | readonly Tensor[]): Promise<number[][]> {
  const outs = r instanceof Array ? r : [r as Tensor];
  return Promise.all(outs.map(async (t) => Array.from(await t.data(), (v) => Math.fround(v))));
}

describe('the CPU answers as PyTorch / NumPy do', () => {
  // topk orders NaN above every number (PyTorch): first when largest, last when smallest; ties keep index order.
  it.each([
    [[NaN, 1, Infinity], 1, true, [NaN], [0]],
    [[1, NaN, 3], 3, true, [NaN, 3, 1], [1, 2, 0]],
    [[1, NaN, 3], 3, false, [1, 3, NaN], [0, 2, 1]],
    [[Infinity, NaN, Infinity], 3, true, [NaN, Infinity, Infinity], [1, 0, 2]],
  ] as const)('topk(%j, k=%i, largest=%s)', async (x, k, largest, values, indices) => {
    const [v, i] = ops.topk(f32([...x]), k, -1, largest);
    expect(await read([v!, i!])).toEqual([values, indices]);
  });

  // logsumexp(x) = log(sum(exp(x))): exp(inf) = inf, exp(-inf) = 0, so [inf, -inf] gives inf, [-inf, -inf] log 0 = -inf.
  it.each([
    [[Infinity, -Infinity], Infinity],
    [[-Infinity, -Infinity], -Infinity],
    [[Infinity, Infinity], Infinity],
    [[1, NaN], NaN],
  ])('logsumexp(%j) = %d', async (x, want) => {
    expect(await read(ops.logsumexp(f32(x)))).toEqual([[want]]);
  });

  // max / argmax propagate NaN, the first one (NumPy's nan-propagating max and argmax).
  it('max and argmax of [1, NaN, 3, NaN] are NaN and 1', async () => {
    expect(await read(ops.max(f32([1, NaN, 3, NaN])))).toEqual([[NaN]]);
    expect(await read(ops.argmax(f32([1, NaN, 3, NaN])))).toEqual([[1]]);
    expect(await read(ops.argmin(f32([1, NaN, 3, NaN])))).toEqual([[1]]);
  });
});

describe('numbers used with GPU tensors are freed deterministically', () => {
  it('500 add(x, 1) calls leave the live buffer count where the results alone put it', async (ctx) => {
    const { pool } = needGpu(ctx);
    const x = await f32([1, 2, 3]).to('webgpu');
    // Warm up (builds the kernel), then count synchronously: no finalizer can run in between.
    withDialect(['webgpu'], () => ops.add(x, 1)).dispose();
    const before = pool.liveBufferCount();
    for (let i = 0; i < 500; i++) withDialect(['webgpu'], () => ops.add(x, 1)).dispose();
    expect(pool.liveBufferCount()).toBe(before);
    const y = withDialect(['webgpu'], () => ops.add(x, 1));
    expect(Array.from(await y.data())).toEqual([2, 3, 4]);
  });

  it('a number saved for a gradient stays usable (multiply saves b)', async (ctx) => {
    needGpu(ctx);
    const x = (await f32([1, 2, 3]).to('webgpu')).requireGrad();
    const y = withDialect(['webgpu'], () => ops.sum(ops.multiply(x, 3)));
    expect(Array.from(await y.data())).toEqual([18]);
  });
});
