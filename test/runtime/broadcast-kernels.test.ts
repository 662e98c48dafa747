// Broadcast elementwise kernels (CPU and wasm, and the CPU fused loop) against a float64 reference that indexes every
// output element by its coordinates, independent of the kernels' contiguous-run walk.

import { describe, expect, it } from 'vitest';
import { ops, tensor, toWasmMemory, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { broadcastRows } from '../../runtime/src/dialects/cpu/support.ts';
import { WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';
import { executeCounted, fuseOps, trace } from '../../runtime/src/graph/index.ts';
import { broadcastShapes, sizeOf } from '../../runtime/src/shape.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';

/** Deterministic values in [lo, hi). */
function values(n: number, seed: number, lo = -2, hi = 2): number[] {
  let a = seed >>> 0;
  return Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return lo + ((a >>> 8) / 2 ** 24) * (hi - lo);
  });
}

/** out[i] = f(a at i's coordinates, b at i's coordinates), coordinates clamped to size-1 axes. */
function reference(
  as: readonly number[],
  aShape: readonly number[],
  bs: readonly number[],
  bShape: readonly number[],
  f: (a: number, b: number) => number,
): { shape: number[]; data: number[] } {
  const shape = broadcastShapes(aShape, bShape)!;
  const at = (data: readonly number[], own: readonly number[], coords: number[]) => {
    const lead = coords.length - own.length;
    let flat = 0;
    for (let d = 0; d < own.length; d++) flat = flat * own[d]! + (own[d] === 1 ? 0 : coords[d + lead]!);
    return data[flat]!;
  };
  const data: number[] = [];
  for (let i = 0; i < sizeOf(shape); i++) {
    const coords: number[] = [];
    let r = i;
    for (let d = shape.length - 1; d >= 0; d--) {
      coords[d] = r % shape[d]!;
      r = Math.floor(r / shape[d]!);
    }
    data.push(f(at(as, aShape, coords), at(bs, bShape, coords)));
  }
  return { shape, data };
}

const PAIRS: [number[], number[]][] = [
  [
    [2, 6, 3, 5],
    [1, 6, 1, 1],
  ], // a per-channel operand: one value per run
  [
    [1, 6, 1, 1],
    [2, 6, 3, 5],
  ],
  [
    [3, 1, 5],
    [3, 4, 1],
  ], // both broadcast, along different axes
  [[4, 7], [7]], // a row vector: runs of 7 (one whole vector and a partial one)
  [
    [5, 3],
    [5, 1],
  ], // runs shorter than a vector
  [[2, 3, 4], []], // a scalar
  [
    [1, 1, 9],
    [2, 3, 9],
  ],
  [
    [0, 3],
    [1, 3],
  ], // empty
];

const BINARY: [string, (a: Tensor, b: Tensor) => Tensor, (a: number, b: number) => number][] = [
  ['add', ops.add, (a, b) => a + b],
  ['subtract', ops.subtract, (a, b) => a - b],
  ['multiply', ops.multiply, (a, b) => a * b],
  ['divide', ops.divide, (a, b) => a / b],
  ['maximum', ops.maximum, (a, b) => Math.max(a, b)],
  ['power', (a, b) => ops.power(ops.exp(a), b), (a, b) => Math.exp(a) ** b],
];

describe('broadcastRows', () => {
  it('merges a per-channel operand into one value per run', () => {
    const plan = broadcastRows(
      [1, 120, 12, 80],
      [
        [1, 120, 12, 80],
        [1, 120, 1, 1],
      ],
    );
    expect([plan.rows, plan.inner, ...plan.steps]).toEqual([120, 960, 1, 0]);
    expect(Array.from(plan.starts[1]!.slice(0, 3))).toEqual([0, 1, 2]);
    expect(Array.from(plan.starts[0]!.slice(0, 3))).toEqual([0, 960, 1920]);
  });
  it('makes same-shape inputs one run', () => {
    const plan = broadcastRows(
      [4, 5, 6],
      [
        [4, 5, 6],
        [4, 5, 6],
      ],
    );
    expect([plan.rows, plan.inner, ...plan.steps]).toEqual([1, 120, 1, 1]);
  });
});

for (const dialect of ['cpu', 'wasm']) {
  for (const dtype of ['float32', 'float64'] as const) {
    describe(`${dialect} ${dtype} broadcast elementwise`, () => {
      for (const [name, op, f] of BINARY.filter(([name]) => dialect === 'cpu' || name !== 'maximum')) {
        for (const [aShape, bShape] of PAIRS) {
          it(`${name} ${JSON.stringify(aShape)} ${JSON.stringify(bShape)}`, () => {
            const av = values(sizeOf(aShape), 7);
            // Divisors kept away from zero.
            const bv = values(sizeOf(bShape), 11, 0.5, 2);
            const want = reference(av, aShape, bv, bShape, f);
            const got = withDialect([dialect], () =>
              op(tensor(av, { shape: aShape, dtype }), tensor(bv, { shape: bShape, dtype })),
            );
            expect(got.shape).toEqual(want.shape);
            assertAllClose(got.dataSync(), want.data, tolerance(dtype));
          });
        }
      }
      // where has no wasm level (its condition is bool).
      if (dialect === 'cpu')
        it('where with a per-row condition and a scalar', () => {
          const shape = [3, 4, 5];
          const xv = values(60, 3);
          const cond = [true, false, true];
          const got = withDialect([dialect], () =>
            ops.where(
              tensor(cond, { shape: [3, 1, 1], dtype: 'bool' }),
              tensor(xv, { shape, dtype }),
              tensor(-1, { dtype }),
            ),
          );
          assertAllClose(
            got.dataSync(),
            xv.map((v, i) => (cond[Math.floor(i / 20)] ? v : -1)),
            tolerance(dtype),
          );
        });
    });
  }
}

describe('wasm tensors stay in wasm memory between calls', () => {
  it('chains through resident outputs and reads the right values', () => {
    const n = 1000;
    const xv = values(n, 5);
    const [av, bv] = [values(n, 6), values(n, 8)];
    const y = withDialect(['wasm'], () => {
      const [x, a, b] = [xv, av, bv].map((v) => tensor(v, { shape: [n] }));
      const z = ops.add(ops.multiply(x, a), b);
      expect(z.storage).toBeInstanceOf(WasmStorage);
      expect((z.storage as WasmStorage).ptr).toBeDefined();
      return ops.multiply(ops.sigmoid(z), x);
    });
    const want = xv.map((x, i) => x / (1 + Math.exp(-(x * av[i]! + bv[i]!))));
    assertAllClose(y.dataSync(), want, tolerance('float32'));
    // Read out once: now it is JavaScript memory, and reading again gives the same array.
    expect((y.storage as WasmStorage).ptr).toBeUndefined();
    expect(y.dataSync()).toBe(y.dataSync());
  });
  it('toWasmMemory places a copy that wasm kernels read in place and the CPU dialect can still read', () => {
    const v = values(100, 4);
    const x = toWasmMemory(tensor(v, { shape: [100] }));
    expect((x.storage as WasmStorage).ptr).toBeDefined();
    const y = withDialect(['wasm'], () => ops.multiply(x, x));
    expect((x.storage as WasmStorage).ptr).toBeDefined();
    assertAllClose(
      y.dataSync(),
      v.map((e) => e * e),
      tolerance('float32'),
    );
    const z = withDialect(['cpu'], () => ops.add(x, x));
    assertAllClose(
      z.dataSync(),
      v.map((e) => e + e),
      tolerance('float32'),
    );
    // int32 has no wasm kernels: it stays as it is.
    const i = tensor([1, 2], { dtype: 'int32' });
    expect(toWasmMemory(i)).toBe(i);
  });
  it('reuses a disposed tensor block', () => {
    const run = () => withDialect(['wasm'], () => ops.exp(tensor(values(4096, 9), { shape: [4096] })));
    const first = run();
    const p = (first.storage as WasmStorage).ptr;
    first.dispose();
    const second = run();
    expect((second.storage as WasmStorage).ptr).toBe(p);
    assertAllClose(
      second.dataSync(),
      values(4096, 9).map((v) => Math.exp(v)),
      tolerance('float32'),
    );
  });
});

describe('CPU fused groups broadcast', () => {
  it('a per-channel scale and shift fused with relu', () => {
    const [n, c, h, w] = [2, 3, 4, 5];
    const xv = values(n * c * h * w, 1);
    const sv = values(c, 2);
    const bv = values(c, 3);
    const g = trace(
      (x: Tensor, s: Tensor, b: Tensor) => ops.relu(ops.add(ops.multiply(x, s), b)),
      [
        { shape: [n, c, h, w], dtype: 'float32' },
        { shape: [1, c, 1, 1], dtype: 'float32' },
        { shape: [1, c, 1, 1], dtype: 'float32' },
      ],
    );
    const fused = fuseOps(g);
    const { outputs, launches } = executeCounted(fused, [
      tensor(xv, { shape: [n, c, h, w] }),
      tensor(sv, { shape: [1, c, 1, 1] }),
      tensor(bv, { shape: [1, c, 1, 1] }),
    ]);
    expect(launches).toBe(1);
    const y = outputs[0];
    const want = xv.map((x, i) => {
      const ch = Math.floor(i / (h * w)) % c;
      return Math.max(0, x * sv[ch]! + bv[ch]!);
    });
    assertAllClose(y!.dataSync(), want, tolerance('float32'));
  });
});
