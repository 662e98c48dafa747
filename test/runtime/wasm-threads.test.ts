// The wasm dialect's opt-in threads (runtime/src/dialects/wasm/threads/): with setWasmThreads(2) matmul, conv2d and
// same-shape elementwise ops split across a worker and the main thread on a shared memory. Each result must equal the
// single-threaded one bit for bit (every element summed by one thread in the same order) and a float64 reference
// computed here, on sizes off every tile and vector width. The thresholds are lowered so small inputs split.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  initWasmThreads,
  ops,
  setWasmThreads,
  setWasmWinograd,
  tensor,
  wasmThreads,
  withDialect,
  type Tensor,
} from '../../runtime/src/index.ts';
import { stopWasmWorkers, threadStats, threadThresholds } from '../../runtime/src/dialects/wasm/threads/index.ts';
import { sizeOf } from '../../runtime/src/shape.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { conv2dRef as conv, lcgValues as values, matmulRef as product } from '../support/reference.ts';

/**
 * Runs f on the wasm dialect with 1 thread, then with 2, and returns both results read out. `split`: whether the
 * products must have split by columns (the wider ones) or by rows, when the case means to reach one of the two.
 */
function bothWays(
  f: () => Tensor,
  split?: 'columns' | 'rows',
): [Float32Array | Float64Array, Float32Array | Float64Array] {
  setWasmThreads(1);
  const one = withDialect(['wasm'], f).dataSync() as Float32Array | Float64Array;
  setWasmThreads(2);
  const before = { ...threadStats };
  const two = withDialect(['wasm'], f).dataSync() as Float32Array | Float64Array;
  // The threaded path really ran (the thresholds below are low enough for every case here).
  const splits = threadStats.splitCalls - before.splitCalls;
  const [byColumns, byRows] = [
    threadStats.columnSplits - before.columnSplits,
    threadStats.rowSplits - before.rowSplits,
  ];
  expect(splits).toBeGreaterThan(0);
  if (split) expect([byColumns > 0, byRows > 0]).toEqual(split === 'columns' ? [true, false] : [false, true]);
  return [one, two];
}

function expectIdentical(a: ArrayLike<number>, b: ArrayLike<number>): void {
  expect(a.length).toBe(b.length);
  let differ = -1;
  for (let i = 0; i < a.length && differ < 0; i++) if (!Object.is(a[i], b[i])) differ = i;
  expect(differ, `element ${differ}: ${a[differ]} vs ${b[differ]}`).toBe(-1);
}

const saved = { ...threadThresholds };
beforeAll(() => {
  threadThresholds.products = 1;
  threadThresholds.elements = 1;
});
afterAll(() => {
  Object.assign(threadThresholds, saved);
  setWasmThreads(1);
});

describe('setWasmThreads', () => {
  it('switches between 1 and 2 threads and rejects bad counts', () => {
    setWasmThreads(2);
    expect(wasmThreads()).toBe(2);
    setWasmThreads(1);
    expect(wasmThreads()).toBe(1);
    expect(() => setWasmThreads(0)).toThrow(/setWasmThreads: n must be an integer from 1 to 16; got 0/);
    expect(() => setWasmThreads(1.5)).toThrow(/got 1.5/);
  });

  it('initWasmThreads (the form browsers need) switches too, and its result equals one thread', async () => {
    const a = values(12 * 21, 11);
    const b = values(21 * 10, 12);
    const f = () =>
      withDialect(['wasm'], () =>
        ops.matmul(tensor(a, { shape: [12, 21], dtype: 'float32' }), tensor(b, { shape: [21, 10], dtype: 'float32' })),
      ).dataSync();
    await initWasmThreads(1);
    const one = f();
    await initWasmThreads(2);
    expect(wasmThreads()).toBe(2);
    const before = threadStats.splitCalls;
    const two = f();
    expect(threadStats.splitCalls).toBe(before + 1);
    expectIdentical(two, one);
    assertAllClose(two, product(a, b, 12, 10, 21), tolerance('float32'));
    await expect(initWasmThreads(17)).rejects.toThrow(/initWasmThreads: n must be an integer from 1 to 16; got 17/);
  });

  it('keeps tensors made before a switch readable after it', () => {
    setWasmThreads(1);
    const a = values(40, 1);
    const t = withDialect(['wasm'], () => ops.add(tensor(a, { dtype: 'float32' }), tensor(a, { dtype: 'float32' })));
    setWasmThreads(2);
    const u = withDialect(['wasm'], () => ops.add(t, t));
    assertAllClose(
      u.dataSync(),
      a.map((v) => 4 * v),
      tolerance('float32'),
    );
    assertAllClose(
      t.dataSync(),
      a.map((v) => 2 * v),
      tolerance('float32'),
    );
  });
});

describe('threaded matmul', () => {
  // float32 products at least as wide as tall split by columns (whole 8-wide tiles, the last one partial), from 4 rows
  // and 16 columns on, unless they have few enough columns for matmul_f32's dot products; the others by rows. float64
  // always by rows.
  for (const [m, n, k, f32split] of [
    [9, 13, 37, 'rows'],
    [67, 129, 131, 'columns'],
    [12, 75, 19, 'columns'],
    [8, 3, 5, 'rows'],
    // Wider than tall but few columns: matmul_f32 dots those, so the split is by rows and each part dots its own.
    [16, 28, 40, 'rows'],
  ] as const)
    for (const dtype of ['float32', 'float64'] as const)
      it(`${dtype} ${m}×${k}·${k}×${n}`, () => {
        const a = values(m * k, 1);
        const b = values(k * n, 2);
        const [one, two] = bothWays(
          () => ops.matmul(tensor(a, { shape: [m, k], dtype }), tensor(b, { shape: [k, n], dtype })),
          dtype === 'float32' ? f32split : 'rows',
        );
        expectIdentical(two, one);
        assertAllClose(two, product(a, b, m, n, k), tolerance(dtype));
      });

  it('batched, with b transposed (matmul_nt)', () => {
    const [batch, m, n, k] = [3, 10, 11, 17];
    const a = values(batch * m * k, 3);
    const bt = values(n * k, 4);
    const b = Array.from({ length: k * n }, (_, t) => bt[(t % n) * k + Math.floor(t / n)]!);
    const [one, two] = bothWays(() =>
      ops.matmulNt(
        tensor(a, { shape: [batch, m, k], dtype: 'float32' }),
        tensor(bt, { shape: [n, k], dtype: 'float32' }),
      ),
    );
    expectIdentical(two, one);
    const want = Array.from({ length: batch }, (_, i) =>
      product(a.slice(i * m * k, (i + 1) * m * k), b, m, n, k),
    ).flat();
    assertAllClose(two, want, tolerance('float32'));
  });
});

describe('workers that take no calls', () => {
  it('leave every call of a split kernel to the caller, with the same result', () => {
    const [m, n, k] = [40, 72, 33];
    const a = values(m * k, 7);
    const b = values(k * n, 8);
    const f = () =>
      ops.matmul(tensor(a, { shape: [m, k], dtype: 'float32' }), tensor(b, { shape: [k, n], dtype: 'float32' }));
    setWasmThreads(1);
    const one = withDialect(['wasm'], f).dataSync();
    setWasmThreads(2);
    // The worker leaves its loop: a pool that waited for each worker's share would wait for ever here.
    stopWasmWorkers();
    const before = threadStats.splitCalls;
    const two = withDialect(['wasm'], f).dataSync();
    expect(threadStats.splitCalls).toBeGreaterThan(before);
    expectIdentical(two, one);
    assertAllClose(two, product(a, b, m, n, k), tolerance('float32'));
    // A fresh pool has working workers again.
    setWasmThreads(1);
    setWasmThreads(2);
    expectIdentical(withDialect(['wasm'], f).dataSync(), one);
  });
});

describe('threaded conv2d', () => {
  // More output positions than channels: split by positions (columns), else by output channels (rows).
  const cases: [string, number[], number[], number[], number[], number, ('columns' | 'rows')?][] = [
    ['3×3, padding 1', [2, 3, 11, 13], [7, 3, 3, 3], [1, 1], [1, 1, 1, 1], 1, 'columns'],
    ['3×3, stride 2', [1, 5, 16, 13], [6, 5, 3, 3], [2, 2], [1, 0, 1, 0], 1, 'columns'],
    ['3×3, more channels than positions', [1, 3, 8, 6], [60, 3, 3, 3], [1, 1], [1, 1, 1, 1], 1, 'rows'],
    ['pointwise 1×1', [1, 6, 9, 9], [9, 6, 1, 1], [1, 1], [0, 0, 0, 0], 1, 'columns'],
    ['2 groups', [1, 4, 8, 10], [6, 2, 3, 3], [1, 1], [1, 1, 1, 1], 2, 'columns'],
    ['depthwise', [1, 5, 10, 11], [5, 1, 3, 3], [1, 1], [1, 1, 1, 1], 5],
    // Winograd (from 8 input channels): F(2×2, 3×3) from 16 tiles, its sixteen products split; F(2, 3) below that, with
    // an even output width, its four products split. Products of at most 64 tiles are dot products, split by rows.
    ['3×3 over 9 channels, Winograd 2×2', [1, 9, 16, 18], [12, 9, 3, 3], [1, 1], [1, 1, 1, 1], 1, 'columns'],
    ['3×3 over 9 channels, Winograd 2×2 over 20 tiles', [1, 9, 8, 10], [12, 9, 3, 3], [1, 1], [1, 1, 1, 1], 1, 'rows'],
    [
      '3×3 over 10 channels, Winograd 2×2, odd rows and columns',
      [1, 10, 17, 19],
      [6, 10, 3, 3],
      [1, 1],
      [1, 1, 1, 1],
      1,
      'columns',
    ],
    [
      '3×3 over 8 channels, Winograd, more channels than tiles',
      [1, 8, 4, 10],
      [24, 8, 3, 3],
      [1, 1],
      [1, 1, 1, 1],
      1,
      'rows',
    ],
    ['3×1 over 16 channels, Winograd', [1, 16, 14, 12], [8, 16, 3, 1], [1, 1], [0, 0, 0, 0], 1, 'columns'],
    ['3×1 over 16 channels, Winograd over 24 tiles', [1, 16, 10, 6], [8, 16, 3, 1], [1, 1], [0, 0, 0, 0], 1, 'rows'],
    // Up to 36 positions (conv_few_f32): output channels split in groups of four, the last part taking the rest.
    ['3×3 over 5×5, 30 outputs (25 positions)', [1, 20, 5, 5], [30, 20, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    ['1×3 over 12×3, 17 outputs (36 positions)', [1, 16, 12, 3], [17, 16, 1, 3], [1, 1], [0, 1, 0, 1], 1],
    ['pointwise 4×6, 2 groups (read in place)', [1, 24, 4, 6], [22, 12, 1, 1], [1, 1], [0, 0, 0, 0], 2],
    ['3×3 over 4×5, 3 outputs (one part has none)', [1, 9, 4, 5], [3, 9, 3, 3], [1, 1], [1, 1, 1, 1], 1],
    ['1×512 at stride 160, 37 outputs (an odd last part)', [1, 1, 1, 1760], [37, 1, 1, 512], [1, 160], [0, 0, 0, 0], 1],
    // Two positions: the positions as the dot products' rows, four output channels at a time against them.
    ['1×3 to 1×2, 22 outputs', [1, 40, 1, 2], [22, 40, 1, 3], [1, 1], [0, 1, 0, 1], 1],
  ];
  for (const [name, xs, ws, stride, padding, groups, split] of cases)
    it(name, () => {
      const x = values(sizeOf(xs), 5);
      const w = values(sizeOf(ws), 6);
      const want = conv(x, xs, w, ws, stride, padding, groups);
      const [one, two] = bothWays(
        () =>
          ops.conv2d(
            tensor(x, { shape: xs, dtype: 'float32' }),
            tensor(w, { shape: ws, dtype: 'float32' }),
            stride,
            padding,
            [1, 1],
            groups,
          ),
        split,
      );
      expectIdentical(two, one);
      assertAllClose(two, want.data, tolerance('float32'));
    });
});

describe('threaded conv2d, Winograd F(4×4, 3×3) and F(4, 3) (setWasmWinograd(4))', () => {
  beforeAll(() => setWasmWinograd(4));
  afterAll(() => setWasmWinograd(2));
  // Their 36 or 6 products split by columns (tiles) or rows (output channels), and both transforms split by parts.
  const cases: [string, number[], number[], number[], 'columns' | 'rows'][] = [
    ['33×35 out, padding 1, 9 → 12 channels', [1, 9, 33, 35], [12, 9, 3, 3], [1, 1, 1, 1], 'columns'],
    ['32×32 out, two images, more channels than tiles', [2, 8, 34, 34], [80, 8, 3, 3], [0, 0, 0, 0], 'rows'],
    ['F(4, 3): 1×3 to 37×18, padding 1', [1, 10, 37, 18], [12, 10, 1, 3], [0, 1, 0, 1], 'columns'],
    ['F(4, 3): 3×1 to 66×8, more channels than tiles', [1, 9, 68, 8], [200, 9, 3, 1], [0, 0, 0, 0], 'rows'],
  ];
  for (const [name, xs, ws, padding, split] of cases)
    it(name, () => {
      const x = values(sizeOf(xs), 5);
      const w = values(sizeOf(ws), 6);
      const f32 = (v: number[], shape: number[]) => tensor(v, { shape, dtype: 'float32' });
      const [one, two] = bothWays(() => ops.conv2d(f32(x, xs), f32(w, ws), [1, 1], padding), split);
      expectIdentical(two, one);
      assertAllClose(two, conv(x, xs, w, ws, [1, 1], padding, 1).data, tolerance('float32'));
    });
});

describe('threaded Winograd products too small to split', () => {
  // Between one product's multiply-adds and all of them: each product runs whole on one thread, side by side.
  const cases: [string, number[], number[], number[], number][] = [
    [
      'F(2×2, 3×3): 16 products, 96 → 24 over 16×16 (as ppocr-det-v4)',
      [1, 96, 16, 16],
      [24, 96, 3, 3],
      [1, 1, 1, 1],
      24 * 96 * 64,
    ],
    ['F(2, 3): 4 products, 1×3, two images', [2, 16, 10, 16], [16, 16, 1, 3], [0, 1, 0, 1], 16 * 16 * 80],
  ];
  afterAll(() => Object.assign(threadThresholds, { products: 1 }));
  for (const [name, xs, ws, padding, each] of cases)
    it(name, () => {
      threadThresholds.products = each + 1;
      const x = values(sizeOf(xs), 5);
      const w = values(sizeOf(ws), 6);
      const f32 = (v: number[], shape: number[]) => tensor(v, { shape, dtype: 'float32' });
      const before = { ...threadStats };
      const [one, two] = bothWays(() => ops.conv2d(f32(x, xs), f32(w, ws), [1, 1], padding));
      expect(threadStats.batchSplits).toBeGreaterThan(before.batchSplits);
      expect([threadStats.columnSplits, threadStats.rowSplits]).toEqual([before.columnSplits, before.rowSplits]);
      expectIdentical(two, one);
      assertAllClose(two, conv(x, xs, w, ws, [1, 1], padding, 1).data, tolerance('float32'));
    });
});

describe('threaded elementwise', () => {
  // Lengths off the 64-byte split unit and the vector width.
  for (const n of [1001, 4099])
    for (const dtype of ['float32', 'float64'] as const) {
      const a = values(n, 7);
      const b = values(n, 8);
      it(`add ${dtype} ×${n}`, () => {
        const [one, two] = bothWays(() => ops.add(tensor(a, { dtype }), tensor(b, { dtype })));
        expectIdentical(two, one);
        assertAllClose(
          two,
          a.map((v, i) => v + b[i]!),
          tolerance(dtype),
        );
      });
      it(`exp and leaky_relu (an attribute) ${dtype} ×${n}`, () => {
        const [e1, e2] = bothWays(() => ops.exp(tensor(a, { dtype })));
        expectIdentical(e2, e1);
        assertAllClose(e2, a.map(Math.exp), tolerance(dtype));
        const [l1, l2] = bothWays(() => ops.leakyRelu(tensor(a, { dtype }), 0.2));
        expectIdentical(l2, l1);
        assertAllClose(
          l2,
          a.map((v) => (v < 0 ? 0.2 * v : v)),
          tolerance(dtype),
        );
      });
    }
});

describe('threaded broadcast elementwise (rows)', () => {
  const cases: [number[], number[]][] = [
    [
      [3, 5, 7, 11],
      [1, 5, 1, 1],
    ],
    [[67, 33], [33]],
    [
      [41, 1],
      [41, 9],
    ],
  ];
  for (const [as, bs] of cases)
    for (const dtype of ['float32', 'float64'] as const)
      it(`${dtype} ${JSON.stringify(as)} · ${JSON.stringify(bs)}`, () => {
        const a = values(sizeOf(as), 9);
        const b = values(sizeOf(bs), 10);
        const [one, two] = bothWays(() =>
          ops.multiply(tensor(a, { shape: as, dtype }), tensor(b, { shape: bs, dtype })),
        );
        expectIdentical(two, one);
        // The float64 reference: each output index mapped back to both inputs (size-1 axes repeat).
        const out = as.map((d, i) => Math.max(d, bs[bs.length - as.length + i] ?? 1));
        const want: number[] = [];
        const at = (shape: number[], idx: number[]) =>
          shape.reduce((off, d, i) => off * d + (d === 1 ? 0 : idx[idx.length - shape.length + i]!), 0);
        for (let f = 0; f < sizeOf(out); f++) {
          const idx: number[] = [];
          for (let i = out.length - 1, r = f; i >= 0; i--) {
            idx.unshift(r % out[i]!);
            r = Math.floor(r / out[i]!);
          }
          want.push(a[at(as, idx)]! * b[at(bs, idx)]!);
        }
        assertAllClose(two, want, tolerance(dtype));
      });
});

describe('worker cleanup', () => {
  it('a program that turns threads on and never off still exits by itself', () => {
    const runtime = fileURLToPath(new URL('../../runtime/src/index.ts', import.meta.url));
    const script = `
      import { ops, tensor, setWasmThreads, withDialect } from ${JSON.stringify(runtime)};
      setWasmThreads(2);
      const x = tensor(Array.from({ length: 1 << 17 }, (_, i) => i % 7), { dtype: 'float32' });
      const y = withDialect(['wasm'], () => ops.add(x, x)).dataSync();
      console.log(y[13]);
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(r.error, 'the child process did not exit by itself').toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(String(2 * (13 % 7)));
    expect(r.status).toBe(0);
  }, 60_000);
});
