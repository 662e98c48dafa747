// The softmax family and the reductions on WebGPU, for rows that one invocation walks alone and for long rows that a
// workgroup shares (64 or 256 lanes combining in workgroup memory), against float64 references computed here.
import { describe, expect, it } from 'vitest';

import { ops, tensor, type Tensor } from '../../runtime/src/index.ts';
import { SPLIT_FROM } from '../../runtime/src/dialects/webgpu/reduce.ts';
import { lanesFor } from '../../runtime/src/dialects/webgpu/row-fold.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

/** Deterministic values in [lo, hi). */
function values(n: number, seed: number, lo = -3, hi = 3): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    out[i] = lo + (hi - lo) * (((t ^ (t >>> 14)) >>> 0) / 2 ** 32);
  }
  return out;
}

/** For each output cell (row-major over the kept axes), the flat offsets of its slice (row-major over `axes`). */
function slices(shape: readonly number[], axes: readonly number[]): number[][] {
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const walk = (dims: number[]): number[] => {
    let offs = [0];
    for (const d of dims) offs = offs.flatMap((o) => Array.from({ length: shape[d]! }, (_, i) => o + i * strides[d]!));
    return offs;
  };
  const kept = shape.map((_, d) => d).filter((d) => !axes.includes(d));
  const inner = walk([...axes]);
  return walk(kept).map((base) => inner.map((o) => base + o));
}

const onGpu = async (data: Float32Array, shape: readonly number[]): Promise<Tensor> =>
  tensor(data, { shape: [...shape], dtype: 'float32' }).to('webgpu');

async function read(t: Tensor): Promise<Float64Array> {
  const v = Float64Array.from(await t.data());
  t.dispose();
  return v;
}

/** Equal NaN positions, and |got - want| <= atol + rtol·|want| elsewhere. */
function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, atol = 1e-4, rtol = 1e-5): void {
  expect(got.length).toBe(want.length);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!;
    const w = want[i]!;
    if (Number.isNaN(w) || Number.isNaN(g)) {
      expect([i, Number.isNaN(g)]).toEqual([i, Number.isNaN(w)]);
      continue;
    }
    const excess = Math.abs(g - w) - (atol + rtol * Math.abs(w));
    if (excess > worst) [worst, at] = [excess, i];
  }
  expect(at < 0 ? 'all close' : `element ${at}: ${got[at]} vs ${want[at]}`).toBe('all close');
}

// Row lengths on both sides of each lane-count boundary, a non-last axis (inner > 1), and more rows than one grid
// dimension holds (65535 workgroups), so the row index spans two dimensions.
const ROW_SHAPES: { shape: number[]; axis: number }[] = [
  { shape: [3, 17], axis: 1 },
  { shape: [5, 63], axis: -1 },
  { shape: [4, 64], axis: 1 },
  { shape: [3, 1000], axis: 1 },
  { shape: [2, 1024], axis: 1 },
  { shape: [2, 1025], axis: 1 },
  { shape: [2, 3000], axis: 1 },
  { shape: [2, 200, 3], axis: 1 },
  { shape: [66000, 64], axis: 1 },
];

describe('webgpu row folds: lane counts', () => {
  it('one invocation per row below 64 elements, then 64 lanes, then 256 beyond 1024', () => {
    expect([1, 63, 64, 1024, 1025, 100000].map(lanesFor)).toEqual([1, 1, 64, 64, 256, 256]);
  });
});

describe('webgpu softmax family against float64', () => {
  it.for(ROW_SHAPES)('softmax and log_softmax over $shape axis $axis', async ({ shape, axis }, ctx) => {
    needGpu(ctx);
    const n = shape.reduce((a, b) => a * b, 1);
    const x = values(n, n, -20, 20);
    const rows = slices(shape, [axis < 0 ? axis + shape.length : axis]);
    const soft = new Float64Array(n);
    const logSoft = new Float64Array(n);
    for (const row of rows) {
      const m = Math.max(...row.map((i) => x[i]!));
      const s = row.reduce((a, i) => a + Math.exp(x[i]! - m), 0);
      for (const i of row) {
        soft[i] = Math.exp(x[i]! - m) / s;
        logSoft[i] = x[i]! - m - Math.log(s);
      }
    }
    const xg = await onGpu(x, shape);
    expectClose(await read(ops.softmax(xg, axis)), soft, 1e-6, 1e-4);
    expectClose(await read(ops.logSoftmax(xg, axis)), logSoft, 1e-4);
    xg.dispose();
  });

  it.for(ROW_SHAPES.slice(0, -1))(
    'softmax_dx and log_softmax_dx over $shape axis $axis',
    async ({ shape, axis }, ctx) => {
      needGpu(ctx);
      const n = shape.reduce((a, b) => a * b, 1);
      const y = values(n, n + 1, 0, 1);
      const dy = values(n, n + 2);
      const rows = slices(shape, [axis < 0 ? axis + shape.length : axis]);
      const dSoft = new Float64Array(n);
      const dLog = new Float64Array(n);
      for (const row of rows) {
        const sp = row.reduce((a, i) => a + dy[i]! * y[i]!, 0);
        const sd = row.reduce((a, i) => a + dy[i]!, 0);
        for (const i of row) {
          dSoft[i] = y[i]! * (dy[i]! - sp);
          dLog[i] = dy[i]! - Math.exp(y[i]!) * sd;
        }
      }
      const [yg, dyg] = [await onGpu(y, shape), await onGpu(dy, shape)];
      expectClose(await read(ops.softmaxDx(yg, dyg, axis)), dSoft, 1e-3, 1e-5);
      expectClose(await read(ops.logSoftmaxDx(yg, dyg, axis)), dLog, 1e-3, 1e-5);
      yg.dispose();
      dyg.dispose();
    },
  );
});

// Reductions over one axis, over several, over all, with slices from 5 to 40,000 elements.
const REDUCE_CASES: { shape: number[]; axes: number[] }[] = [
  { shape: [6, 5], axes: [1] },
  { shape: [3, 700], axes: [1] },
  { shape: [700, 3], axes: [0] },
  { shape: [4, 30, 40], axes: [1, 2] },
  { shape: [3, 4, 1500], axes: [0, 2] },
  { shape: [12000], axes: [0] },
  // From 2^14 elements per cell, with fewer than 128 cells, chunks of a slice fold in parallel, then their partials.
  { shape: [20000], axes: [0] },
  { shape: [2, 40000], axes: [1] },
  { shape: [300, 2, 100], axes: [0, 2] },
];

type Fold = (slice: number[]) => number;
const argBy =
  (better: (a: number, b: number) => boolean): Fold =>
  (s) => {
    let best = 0;
    for (let k = 1; k < s.length; k++) {
      if (Number.isNaN(s[best]!)) break;
      if (Number.isNaN(s[k]!) || better(s[k]!, s[best]!)) best = k;
    }
    return best;
  };
const REDUCTIONS: { op: string; run: (x: Tensor, axes: number[]) => Tensor; ref: Fold; lo?: number; hi?: number }[] = [
  { op: 'sum', run: (x, a) => ops.sum(x, a), ref: (s) => s.reduce((p, v) => p + v, 0) },
  { op: 'mean', run: (x, a) => ops.mean(x, a), ref: (s) => s.reduce((p, v) => p + v, 0) / s.length },
  // Factors near 1, so the product of thousands of them stays finite and far from zero.
  { op: 'prod', run: (x, a) => ops.prod(x, a), ref: (s) => s.reduce((p, v) => p * v, 1), lo: 0.999, hi: 1.001 },
  { op: 'max', run: (x, a) => ops.max(x, a), ref: (s) => Math.max(...s) },
  { op: 'min', run: (x, a) => ops.min(x, a), ref: (s) => Math.min(...s) },
  {
    op: 'logsumexp',
    run: (x, a) => ops.logsumexp(x, a),
    ref: (s) => {
      const m = Math.max(...s);
      return m + Math.log(s.reduce((p, v) => p + Math.exp(v - m), 0));
    },
  },
];

describe('webgpu reductions against float64', () => {
  for (const { op, run, ref, lo, hi } of REDUCTIONS)
    it.for(REDUCE_CASES)(`${op} over $shape axes $axes`, async ({ shape, axes }, ctx) => {
      needGpu(ctx);
      const n = shape.reduce((a, b) => a * b, 1);
      const x = values(n, n + op.length, lo, hi);
      const want = slices(shape, axes).map((idx) => ref(idx.map((i) => x[i]!)));
      const xg = await onGpu(x, shape);
      expectClose(await read(run(xg, axes)), want, 2e-4, 1e-5);
      xg.dispose();
    });

  it.for(REDUCE_CASES)('argmax and argmin over the last of $shape, with ties and NaNs', async ({ shape }, ctx) => {
    needGpu(ctx);
    const n = shape.reduce((a, b) => a * b, 1);
    // Few distinct values, so every slice has ties; a NaN in every other slice, two in some.
    const x = values(n, n + 7, 0, 4).map(Math.floor);
    const rows = slices(shape, [shape.length - 1]);
    rows.forEach((row, r) => {
      if (r % 2 === 1) x[row[(r * 37) % row.length]!] = NaN;
      if (r % 4 === 1) x[row[row.length - 1]!] = NaN;
    });
    // The largest and smallest value appear at several places: the first of them must win.
    const xg = await onGpu(x, shape);
    const axis = shape.length - 1;
    for (const [op, better] of [
      ['argmax', (a: number, b: number) => a > b],
      ['argmin', (a: number, b: number) => a < b],
    ] as const) {
      const want = rows.map((row) => argBy(better)(row.map((i) => x[i]!)));
      const got = await read(op === 'argmax' ? ops.argmax(xg, axis) : ops.argmin(xg, axis));
      expect(Array.from(got)).toEqual(want);
    }
    xg.dispose();
  });

  it('folds slices of SPLIT_FROM elements and more in chunks, then their partials', (ctx) => {
    const gpu = needGpu(ctx);
    expect(20000).toBeGreaterThanOrEqual(SPLIT_FROM);
    const keys = gpu.pipelines.compiledPipelineKeys().map((k) => k.replace(/#main$/, ''));
    for (const op of ['sum', 'mean', 'prod', 'max', 'min', 'argmax', 'argmin'])
      expect(keys.filter((k) => k.startsWith(`webgpu:${op}|f32|`) && /\|(chunks|partials)$/.test(k))).toHaveLength(2);
  });

  it('max and min propagate a NaN wherever it sits in a long slice', async (ctx) => {
    needGpu(ctx);
    const shape = [4, 3000];
    const x = values(12000, 5);
    // Slice 0 has none; the others one NaN at the start, the middle and the end (different lanes' shares).
    for (const [r, k] of [
      [1, 0],
      [2, 1501],
      [3, 2999],
    ])
      x[r! * 3000 + k!] = NaN;
    const xg = await onGpu(x, shape);
    for (const got of [await read(ops.max(xg, [1])), await read(ops.min(xg, [1]))])
      expect(Array.from(got, Number.isNaN)).toEqual([false, true, true, true]);
    xg.dispose();
  });
});

describe('webgpu layer_norm against float64', () => {
  // Rows of 50 (one invocation each), 64 and 1000 (64 lanes), 3000 (256 lanes); the last normalizes two axes at once.
  it.for([
    { shape: [7, 50], axis: -1 },
    { shape: [5, 64], axis: -1 },
    { shape: [3, 1000], axis: 1 },
    { shape: [2, 3000], axis: 1 },
    { shape: [2, 40, 30], axis: 1 },
  ])('layer_norm and layer_norm_dx over $shape from axis $axis', async ({ shape, axis }, ctx) => {
    needGpu(ctx);
    const a = axis < 0 ? axis + shape.length : axis;
    const n = shape.reduce((p, q) => p * q, 1);
    const d = shape.slice(a).reduce((p, q) => p * q, 1);
    // An offset and a spread far from 0 and 1, so neither mean nor variance is trivial.
    const x = values(n, n + 11, 5, 9);
    const scale = values(d, d + 1, 0.5, 2);
    const bias = values(d, d + 2);
    const dy = values(n, n + 13);
    const eps = 1e-5;
    const y = new Float64Array(n);
    const dx = new Float64Array(n);
    for (let base = 0; base < n; base += d) {
      const row = Array.from({ length: d }, (_, k) => x[base + k]!);
      const mean = row.reduce((p, v) => p + v, 0) / d;
      const inv = 1 / Math.sqrt(row.reduce((p, v) => p + (v - mean) ** 2, 0) / d + eps);
      const xhat = row.map((v) => (v - mean) * inv);
      const g = xhat.map((_, k) => dy[base + k]! * scale[k]!);
      const gMean = g.reduce((p, v) => p + v, 0) / d;
      const gxMean = g.reduce((p, v, k) => p + v * xhat[k]!, 0) / d;
      for (let k = 0; k < d; k++) {
        y[base + k] = xhat[k]! * scale[k]! + bias[k]!;
        dx[base + k] = inv * (g[k]! - gMean - xhat[k]! * gxMean);
      }
    }
    const normalized = shape.slice(a);
    const [xg, sg, bg, dyg] = [
      await onGpu(x, shape),
      await onGpu(scale, normalized),
      await onGpu(bias, normalized),
      await onGpu(dy, shape),
    ];
    expectClose(await read(ops.layerNorm(xg, sg, bg, axis, eps)), y, 1e-3);
    expectClose(await read(ops.layerNormDx(xg, sg, dyg, axis, eps)), dx, 1e-3);
    for (const t of [xg, sg, bg, dyg]) t.dispose();
  });
});
