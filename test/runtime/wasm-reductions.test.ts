// The wasm dialect's reductions and softmax (issue 15) against float64 references computed here: rows whose length is
// no multiple of the vector widths (4 and 16 lanes), column reductions, several reduced runs, NaN propagation, and
// softmax / log_softmax on rows far from zero, where exp overflows unless the maximum is subtracted first.

import { describe, expect, it } from 'vitest';
import { ops, tensor, toWasmMemory, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';

function values(n: number, seed: number, scale = 1, offset = 0): number[] {
  let a = seed >>> 0;
  return Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return offset + scale * ((a >>> 8) / 2 ** 23 - 1);
  });
}

/** x [outer, len, inner] folded over len in float64. */
function fold(x: ArrayLike<number>, outer: number, len: number, inner: number, f: (xs: number[]) => number): number[] {
  const out: number[] = [];
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const xs: number[] = [];
      for (let k = 0; k < len; k++) xs.push(x[(o * len + k) * inner + i]!);
      out.push(f(xs));
    }
  return out;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const REFS = {
  sum,
  mean: (xs: number[]) => sum(xs) / xs.length,
  max: (xs: number[]) => Math.max(...xs),
  min: (xs: number[]) => Math.min(...xs),
} as const;

const wasmOp = (op: keyof typeof REFS, x: Tensor, axis: number[] | null, keepdims = false) =>
  withDialect(['wasm'], () => ops[op](x, axis, keepdims));

/** The input as the dialect sees it in a run: resident in wasm memory, rounded to the dtype. */
function input(shape: number[], xs: number[], dtype: 'float32' | 'float64') {
  const t = toWasmMemory(tensor(xs, { shape, dtype }));
  return { t, xs: Array.from(t.dataSync()) };
}

describe('wasm reductions', () => {
  for (const dtype of ['float32', 'float64'] as const)
    for (const op of ['sum', 'mean', 'max', 'min'] as const)
      for (const [outer, len] of [
        [3, 1],
        [2, 3],
        [5, 17],
        [4, 63],
        [2, 64],
        [3, 1029],
      ] as const)
        it(`${op} ${dtype} over the last axis of [${outer}, ${len}]`, () => {
          const { t, xs } = input([outer, len], values(outer * len, outer * 31 + len, 3, 0.5), dtype);
          const got = wasmOp(op, t, [-1]);
          expect([...got.shape]).toEqual([outer]);
          assertAllClose(got.dataSync(), fold(xs, outer, len, 1, REFS[op]), tolerance(dtype), `${op}`);
        });

  for (const op of ['sum', 'mean', 'max', 'min'] as const)
    it(`${op} over leading and middle axes, and over everything (column reductions, several runs)`, () => {
      const shape = [3, 5, 7];
      const { t, xs } = input(shape, values(105, 7, 2), 'float32');
      assertAllClose(wasmOp(op, t, [0]).dataSync(), fold(xs, 1, 3, 35, REFS[op]), tolerance('float32'), `${op} axis 0`);
      assertAllClose(
        wasmOp(op, t, [1], true).dataSync(),
        fold(xs, 3, 5, 7, REFS[op]),
        tolerance('float32'),
        `${op} axis 1`,
      );
      // Axes 0 and 2: two runs; the reference folds each output's 21 elements at once.
      const both: number[] = [];
      for (let j = 0; j < 5; j++) {
        const picked: number[] = [];
        for (let o = 0; o < 3; o++) for (let i = 0; i < 7; i++) picked.push(xs[(o * 5 + j) * 7 + i]!);
        both.push(REFS[op](picked));
      }
      assertAllClose(wasmOp(op, t, [0, 2]).dataSync(), both, tolerance('float32'), `${op} axes 0, 2`);
      assertAllClose(wasmOp(op, t, null).dataSync(), [REFS[op](xs)], tolerance('float32'), `${op} all`);
    });

  it('max and min propagate NaN from any lane, the tail included; the other rows are unaffected', () => {
    for (const at of [0, 5, 17, 18]) {
      const xs = values(2 * 19, at + 1);
      xs[at] = NaN;
      const t = tensor(xs, { shape: [2, 19] });
      for (const op of ['max', 'min'] as const) {
        const got = Array.from(wasmOp(op, t, [-1]).dataSync());
        expect(got[0]).toBeNaN();
        expect(got[1]).toBe(Math.fround(REFS[op](Array.from(Float32Array.from(xs.slice(19))))));
      }
    }
  });
  it('max and min of long rows: NaN in any of the 16-lane blocks or the tail gives NaN; ±Infinity fold as values', () => {
    const len = 1029;
    for (const at of [0, 15, 16, 517, 1023, 1024, 1028]) {
      const xs = values(3 * len, at + 11, 4);
      xs[at] = NaN;
      xs[len + at] = Infinity;
      xs[2 * len + at] = -Infinity;
      const t = toWasmMemory(tensor(xs, { shape: [3, len] }));
      const xf = Array.from(Float32Array.from(xs));
      for (const op of ['max', 'min'] as const) {
        const got = Array.from(wasmOp(op, t, [-1]).dataSync());
        expect(got[0], `${op}, NaN at ${at}`).toBeNaN();
        for (const r of [1, 2])
          expect(got[r], `${op} row ${r}, ±Infinity at ${at}`).toBe(REFS[op](xf.slice(r * len, (r + 1) * len)));
      }
    }
  });
});

describe('wasm softmax and log_softmax', () => {
  const softmaxRef = (xs: number[]) => {
    const m = Math.max(...xs);
    const e = xs.map((v) => Math.exp(v - m));
    const s = sum(e);
    return e.map((v) => v / s);
  };
  const logSoftmaxRef = (xs: number[]) => {
    const m = Math.max(...xs);
    const lse = m + Math.log(sum(xs.map((v) => Math.exp(v - m))));
    return xs.map((v) => v - lse);
  };
  const rows = (xs: number[], len: number, f: (r: number[]) => number[]) =>
    Array.from({ length: xs.length / len }, (_, r) => f(xs.slice(r * len, (r + 1) * len))).flat();

  for (const dtype of ['float32', 'float64'] as const)
    for (const [outer, len] of [
      [1, 1],
      [3, 5],
      [2, 17],
      [4, 33],
      [2, 1030],
    ] as const)
      for (const [what, scale, offset] of [
        ['near zero', 4, 0],
        ['large positive', 30, 200],
        ['large negative', 30, -300],
      ] as const)
        it(`${dtype} [${outer}, ${len}], ${what}`, () => {
          const { t, xs } = input([outer, len], values(outer * len, len * 7 + outer, scale, offset), dtype);
          const y = withDialect(['wasm'], () => ops.softmax(t, -1));
          const ly = withDialect(['wasm'], () => ops.logSoftmax(t, -1));
          const ys = Array.from(y.dataSync());
          expect(ys.every(Number.isFinite)).toBe(true);
          assertAllClose(ys, rows(xs, len, softmaxRef), tolerance(dtype), 'softmax');
          // log_softmax of large inputs is large: compare relative to the magnitude of the shift as well.
          assertAllClose(ly.dataSync(), rows(xs, len, logSoftmaxRef), tolerance(dtype), 'log_softmax');
        });

  it('float32 softmax rows are within a few ulps of float64 down to e^-87, and under 2^-126 below (the flush)', () => {
    // Rows spread over 100 units: exp(x - max) spans the whole f32 range, through the vector exp's flush at -88.
    // x - max rounds to f32 (half an ulp of |x - max|, |x - max| · 2^-24 relative after exp), then 2e-6 for the rest.
    for (const len of [7, 61, 1031]) {
      const { t, xs } = input([3, len], values(3 * len, len, 50, 10), 'float32');
      const ys = Array.from(withDialect(['wasm'], () => ops.softmax(t, -1)).dataSync());
      const want = rows(xs, len, softmaxRef);
      const ms = Array.from({ length: 3 }, (_, r) => Math.max(...xs.slice(r * len, (r + 1) * len)));
      for (let i = 0; i < ys.length; i++) {
        const d = xs[i]! - ms[Math.floor(i / len)]!;
        // Near and past the flush the result is subnormal or 0: absolute error under the smallest normal.
        expect(ys[i]).toBeGreaterThanOrEqual(0);
        expect(Math.abs(ys[i]! - want[i]!), `element ${i}, x - max = ${d}`).toBeLessThanOrEqual(
          (2e-6 - d * 2 ** -24) * want[i]! + 1.2e-38,
        );
      }
    }
  });

  it('a NaN anywhere in a row makes that softmax / log_softmax row NaN; -Infinity elements give 0 / -Infinity', () => {
    for (const at of [0, 9, 37, 40]) {
      const xs = values(2 * 41, at + 3, 5);
      xs[at] = NaN;
      xs[41 + ((at + 7) % 41)] = -Infinity;
      const t = toWasmMemory(tensor(xs, { shape: [2, 41] }));
      const xf = Array.from(Float32Array.from(xs));
      const y = Array.from(withDialect(['wasm'], () => ops.softmax(t, -1)).dataSync());
      const ly = Array.from(withDialect(['wasm'], () => ops.logSoftmax(t, -1)).dataSync());
      expect(y.slice(0, 41).every(Number.isNaN)).toBe(true);
      expect(ly.slice(0, 41).every(Number.isNaN)).toBe(true);
      assertAllClose(y.slice(41), softmaxRef(xf.slice(41)), tolerance('float32'), 'softmax, second row');
      expect(y[41 + ((at + 7) % 41)]).toBe(0);
      expect(ly[41 + ((at + 7) % 41)]).toBe(-Infinity);
      const finite = ly.slice(41).filter(Number.isFinite);
      expect(finite.length).toBe(40);
    }
  });

  it('softmax over a middle axis (the strided path) matches the reference', () => {
    const { t, xs } = input([2, 7, 3], values(42, 3, 5), 'float32');
    const got = withDialect(['wasm'], () => ops.softmax(t, 1));
    const expected: number[] = new Array(42);
    for (let o = 0; o < 2; o++)
      for (let i = 0; i < 3; i++) {
        const r = softmaxRef(Array.from({ length: 7 }, (_, k) => xs[(o * 7 + k) * 3 + i]!));
        r.forEach((v, k) => (expected[(o * 7 + k) * 3 + i] = v));
      }
    assertAllClose(got.dataSync(), expected, tolerance('float32'), 'softmax axis 1');
  });
});
