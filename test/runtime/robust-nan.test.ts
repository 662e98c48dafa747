// NaN semantics are the same on every dialect, per reduction and for max/min-like elementwise ops, and argmax/argmin
// follow NumPy: the first extreme wins ties, the first NaN wins over every number. References are written here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ops, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { execute, fuseOps, trace } from '../../runtime/src/graph/index.ts';
import { gpuUnavailableReason, initWebGpu, releaseGpu } from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

let gpu = false;
beforeAll(async () => {
  gpu = Boolean(await initWebGpu());
});
afterAll(async () => {
  await releaseGpu();
});

/** Rows of a [3, 4] input: a NaN in the middle, a NaN first, no NaN with a tie for the extremes. */
const ROWS = [
  [1, NaN, 3, NaN],
  [NaN, 5, -2, 7],
  [4, -1, 4, -1],
];

/** NumPy's semantics, per row. */
const firstNan = (r: number[]) => r.findIndex((v) => Number.isNaN(v));
const REDUCTIONS: [string, (x: Tensor) => Tensor, (r: number[]) => number][] = [
  ['sum', (x) => ops.sum(x, [1]), (r) => r.reduce((a, b) => a + b, 0)],
  ['mean', (x) => ops.mean(x, [1]), (r) => r.reduce((a, b) => a + b, 0) / r.length],
  ['prod', (x) => ops.prod(x, [1]), (r) => r.reduce((a, b) => a * b, 1)],
  ['max', (x) => ops.max(x, [1]), (r) => (firstNan(r) >= 0 ? NaN : Math.max(...r))],
  ['min', (x) => ops.min(x, [1]), (r) => (firstNan(r) >= 0 ? NaN : Math.min(...r))],
  ['logsumexp', (x) => ops.logsumexp(x, [1]), (r) => Math.log(r.reduce((a, b) => a + Math.exp(b), 0))],
  ['argmax', (x) => ops.argmax(x, 1), (r) => (firstNan(r) >= 0 ? firstNan(r) : r.indexOf(Math.max(...r)))],
  ['argmin', (x) => ops.argmin(x, 1), (r) => (firstNan(r) >= 0 ? firstNan(r) : r.indexOf(Math.min(...r)))],
];

const A = [1, NaN, 3, NaN, -5, 0.5];
const B = [2, 2, NaN, NaN, -7, 0.25];
const ELEMENTWISE: [string, (a: Tensor, b: Tensor) => Tensor, (a: number, b: number) => number][] = [
  ['maximum', (a, b) => ops.maximum(a, b), (a, b) => Math.max(a, b)],
  ['minimum', (a, b) => ops.minimum(a, b), (a, b) => Math.min(a, b)],
  ['relu', (a) => ops.relu(a), (a) => Math.max(a, 0)],
  ['clip', (a) => ops.clip(a, -1, 1), (a) => Math.min(Math.max(a, -1), 1)],
];

function expectSame(got: ArrayLike<number>, want: number[], what: string): void {
  expect(got.length, what).toBe(want.length);
  want.forEach((w, i) => {
    if (Number.isNaN(w)) expect(Number.isNaN(got[i]!), `${what}[${i}] should be NaN, got ${got[i]}`).toBe(true);
    else expect(got[i]!, `${what}[${i}]`).toBeCloseTo(w, 4);
  });
}

/** Runs the check on the CPU and wasm dialects, and on WebGPU where there is an adapter (required in CI). */
async function onEach(
  run: (dialect: 'cpu' | 'wasm' | 'webgpu', place: (t: Tensor) => Promise<Tensor>) => Promise<void>,
): Promise<void> {
  for (const dialect of ['cpu', 'wasm'] as const) await run(dialect, async (t) => t);
  if (gpu) await run('webgpu', (t) => t.to('webgpu'));
  else if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
}

describe('every reduction treats NaN the same on every dialect', () => {
  it.each(REDUCTIONS)('%s', async (name, f, ref) => {
    const want = ROWS.map(ref);
    await onEach(async (dialect, place) => {
      const x = await place(tensor(ROWS));
      // A dialect without this op falls back to the CPU; the result must be the same either way.
      const y = withDialect([dialect, 'cpu'], () => f(x));
      expectSame(await y.data(), want, `${name} on ${dialect}`);
    });
  });
});

describe('max/min-like elementwise ops propagate NaN on every dialect', () => {
  it.each(ELEMENTWISE)('%s', async (name, f, ref) => {
    const want = A.map((a, i) => ref(a, B[i]!));
    await onEach(async (dialect, place) => {
      const [a, b] = [await place(tensor(A)), await place(tensor(B))];
      expectSame(await withDialect([dialect, 'cpu'], () => f(a, b)).data(), want, `${name} on ${dialect}`);
    });
  });

  it('max_pool2d and a fused relu chain, on WebGPU as on the CPU', async (ctx) => {
    const x = tensor([1, NaN, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], { shape: [1, 1, 4, 4] });
    const pool = (t: Tensor) => ops.maxPool2d(t, [2, 2], [2, 2]);
    expectSame(pool(x).dataSync(), [NaN, 8, 14, 16], 'max_pool2d on cpu');
    const chain = (t: Tensor) => ops.clip(ops.relu(ops.multiply(t, 2)), 0, 5);
    expectSame(chain(tensor(A)).dataSync(), [2, NaN, 5, NaN, 0, 1], 'relu chain on cpu');
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      return ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
    }
    const xp = await x.to('webgpu');
    expectSame(await withDialect(['webgpu'], () => pool(xp)).data(), [NaN, 8, 14, 16], 'max_pool2d on webgpu');
    const xg = await tensor(A).to('webgpu');
    const g = fuseOps(trace(chain, [xg]));
    expectSame(await execute(g, [xg])[0]!.data(), [2, NaN, 5, NaN, 0, 1], 'fused relu chain on webgpu');
  });
});

describe('argmax and argmin order as NumPy', () => {
  it('first occurrence on ties, first NaN over numbers, over the flattened input too', () => {
    expect(ops.argmax(tensor([3, 1, 3])).item()).toBe(0);
    expect(ops.argmin(tensor([0, -1, 5, -1])).item()).toBe(1);
    expect(ops.argmax(tensor([1, NaN, 3, NaN])).item()).toBe(1);
    expect(
      ops
        .argmin(
          tensor([
            [4, 2],
            [NaN, NaN],
          ]),
        )
        .item(),
    ).toBe(2);
  });
});
