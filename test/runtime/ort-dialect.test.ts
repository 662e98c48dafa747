// The ort dialect's dispatch: pinned calls and gradients run in onnxruntime-node; unpinned calls go there only for a
// heavy op above its work threshold; sessions are cached per signature. References are float64 loops written here.

import { describe, expect, it } from 'vitest';
import { fromStorage, grad, ops, Tensor, withDialect, allDialectOps } from '../../runtime/src/index.ts';
import { ortMinWork, ortStats, ortWork } from '../../runtime/src/dialects/ort/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';

const values = (n: number, seed: number): Float64Array => {
  let a = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 2147483648 - 1;
  });
};
const f64 = (shape: number[], seed: number) =>
  fromStorage(
    shape,
    'float64',
    values(
      shape.reduce((p, q) => p * q, 1),
      seed,
    ),
  );

const f32 = (shape: number[], seed: number) =>
  fromStorage(
    shape,
    'float32',
    Float32Array.from(
      values(
        shape.reduce((p, q) => p * q, 1),
        seed,
      ),
    ),
  );

/** Runs f and says how many onnxruntime calls it made. */
function counting<T>(f: () => T): [T, number] {
  const before = ortStats().runs;
  const r = f();
  return [r, ortStats().runs - before];
}

describe('ort dialect: dispatch', () => {
  it('registers raf.op.ort.matmul above wasm and raf.op.ort.add below cpu', () => {
    const level = (op: string, d: string) => allDialectOps(op).find((x) => x.dialect === d)!.level;
    expect(level('matmul', 'ort')).toBeGreaterThan(level('matmul', 'wasm'));
    expect(level('add', 'ort')).toBeLessThan(level('add', 'cpu'));
  });

  it('leaves a small matmul to wasm and sends one above the threshold to onnxruntime', () => {
    const small = [f64([8, 8], 1), f64([8, 8], 2)] as const;
    expect(ortWork({ a: small[0], b: small[1] }, { dtype: 'float64', shape: [8, 8] })).toBeLessThan(
      ortMinWork('matmul')!,
    );
    const [, smallRuns] = counting(() => ops.matmul(small[0], small[1]));
    expect(smallRuns).toBe(0);
    // n with 3n² at or above the threshold: onnxruntime serves it, and agrees with the CPU dialect.
    const n = Math.ceil(Math.sqrt(ortMinWork('matmul')! / 3));
    const a = f64([n, n], 3);
    const b = f64([n, n], 4);
    const [big, bigRuns] = counting(() => ops.matmul(a, b));
    expect(bigRuns).toBe(1);
    const want = withDialect(['cpu'], () => ops.matmul(a, b));
    assertAllClose(big.dataSync(), want.dataSync(), tolerance('float64'), 'matmul via ort vs cpu');
  });

  it('keeps conv2d calls with shallow reductions (depthwise, few channels) in wasm and sends a deep dense one to ort', () => {
    // conv2d 3×3 pad 1 stride 1 in float64 loops: y[q, i, j] = Σ over the group's channels and the window.
    const reference = (x: Float32Array, xs: number[], wt: Float32Array, ws: number[], groups: number) => {
      const [, c, h, w] = xs as [number, number, number, number];
      const [o, cg] = ws as [number, number];
      const y = new Float64Array(o * h * w);
      for (let q = 0; q < o; q++) {
        const c0 = Math.floor(q / (o / groups)) * cg;
        for (let ch = 0; ch < cg; ch++)
          for (let u = 0; u < 3; u++)
            for (let v = 0; v < 3; v++) {
              const k = wt[((q * cg + ch) * 3 + u) * 3 + v]!;
              for (let i = 0; i < h; i++) {
                const yi = i + u - 1;
                if (yi < 0 || yi >= h) continue;
                for (let j = 0; j < w; j++) {
                  const xj = j + v - 1;
                  if (xj >= 0 && xj < w) y[(q * h + i) * w + j]! += k * x[((c0 + ch) * h + yi) * w + xj]!;
                }
              }
            }
      }
      expect(c).toBe(cg * groups);
      return y;
    };
    const cases: [string, number[], number[], number, number][] = [
      // name, x shape, w shape, groups, onnxruntime runs expected
      ['depthwise 64×80²', [1, 64, 80, 80], [64, 1, 3, 3], 64, 0],
      ['dense 16×64² (9·16 = 144 multiply-adds an output)', [1, 16, 64, 64], [16, 16, 3, 3], 1, 0],
      ['dense 32×64² (9·32 = 288)', [1, 32, 64, 64], [32, 32, 3, 3], 1, 1],
    ];
    for (const [name, xs, ws, groups, want] of cases) {
      const x = f32(xs, 31);
      const w = f32(ws, 32);
      const out = { dtype: 'float32' as const, shape: [xs[0]!, ws[0]!, xs[2]!, xs[3]!] };
      // Every case is above conv2d's work threshold: only the reduction's depth decides.
      expect(ortWork({ x, w }, out)).toBeGreaterThanOrEqual(ortMinWork('conv2d')!);
      const [y, runs] = counting(() => ops.conv2d(x, w, [1, 1], [1, 1, 1, 1], [1, 1], groups));
      expect(runs, name).toBe(want);
      const ref = reference(x.dataSync() as Float32Array, xs, w.dataSync() as Float32Array, ws, groups);
      assertAllClose(y.dataSync(), ref, tolerance('float32'), name);
    }
  });

  it('never sends an elementwise op to onnxruntime unpinned, and runs it there when pinned', () => {
    const x = f64([1024], 5);
    expect(counting(() => ops.exp(x))[1]).toBe(0);
    const [y, runs] = counting(() => withDialect(['ort'], () => ops.exp(x)));
    expect(runs).toBe(1);
    assertAllClose(y.dataSync(), Array.from(x.dataSync(), Math.exp), tolerance('float64'), 'exp via ort');
  });

  it('builds one session per signature and shapes, and reuses it', () => {
    const x = f64([3, 5], 6);
    withDialect(['ort'], () => ops.tanh(x));
    const before = ortStats().sessions;
    for (let i = 0; i < 3; i++) withDialect(['ort'], () => ops.tanh(x));
    expect(ortStats().sessions).toBe(before);
    withDialect(['ort'], () => ops.tanh(f64([2, 5], 7)));
    expect(ortStats().sessions).toBe(before + 1);
  });

  it('declines a type onnxruntime has no kernel for (Conv in float64): a lower level serves it', () => {
    const x = f64([1, 1, 4, 4], 9);
    const w = f64([1, 1, 2, 2], 10);
    const [y, runs] = counting(() => withDialect(['ort', 'cpu'], () => ops.conv2d(x, w)));
    expect(runs).toBe(0);
    const want = withDialect(['cpu'], () => ops.conv2d(x, w));
    assertAllClose(y.dataSync(), want.dataSync(), tolerance('float64'), 'conv2d float64');
  });

  it('names the dialect when pinned to ort for an op it does not serve', () => {
    const x = f64([2, 3], 8);
    expect(allDialectOps('matmul_nt').some((d) => d.dialect === 'ort')).toBe(false);
    expect(() => withDialect(['ort'], () => ops.matmulNt(x, x))).toThrow(/matmul_nt/);
  });
});

describe('ort dialect: gradients', () => {
  it('matmul: d sum(A·B ⊙ G) through ort matches Gᵀ-products computed here', () => {
    const [m, k, n] = [4, 5, 3];
    const A = f64([m, k], 11);
    const B = f64([k, n], 12);
    const G = f64([m, n], 13);
    const loss = (a: Tensor, b: Tensor) => ops.sum(ops.multiply(ops.matmul(a, b), G));
    const [[dA, dB], runs] = counting(() => withDialect(['ort', 'cpu'], () => grad(loss)(A, B)));
    expect(runs).toBeGreaterThan(0);
    const [a, b, g] = [A.dataSync(), B.dataSync(), G.dataSync()];
    const wantA = new Float64Array(m * k);
    const wantB = new Float64Array(k * n);
    for (let i = 0; i < m; i++)
      for (let p = 0; p < k; p++)
        for (let j = 0; j < n; j++) {
          wantA[i * k + p]! += g[i * n + j]! * b[p * n + j]!;
          wantB[p * n + j]! += a[i * k + p]! * g[i * n + j]!;
        }
    assertAllClose(dA!.dataSync(), wantA, tolerance('float64'), 'dA');
    assertAllClose(dB!.dataSync(), wantB, tolerance('float64'), 'dB');
  });

  it('conv2d: d sum(conv2d(x, w) ⊙ G) through ort (float32: onnxruntime has no float64 Conv) matches direct loops', () => {
    const [c, o, h, w, kh, kw, pad] = [2, 3, 5, 4, 3, 2, 1];
    const [oh, ow] = [h + 2 * pad - kh + 1, w + 2 * pad - kw + 1];
    const X = f32([1, c, h, w], 21);
    const W = f32([o, c, kh, kw], 22);
    const G = f32([1, o, oh, ow], 23);
    const loss = (x: Tensor, wt: Tensor) => ops.sum(ops.multiply(ops.conv2d(x, wt, [1, 1], [pad, pad, pad, pad]), G));
    const [[dX, dW], runs] = counting(() => withDialect(['ort', 'cpu'], () => grad(loss)(X, W)));
    expect(runs).toBeGreaterThan(0);
    const [x, wt, g] = [X.dataSync(), W.dataSync(), G.dataSync()];
    const wantX = new Float64Array(x.length);
    const wantW = new Float64Array(wt.length);
    for (let q = 0; q < o; q++)
      for (let i = 0; i < oh; i++)
        for (let j = 0; j < ow; j++)
          for (let ch = 0; ch < c; ch++)
            for (let u = 0; u < kh; u++)
              for (let v = 0; v < kw; v++) {
                const [yi, xj] = [i + u - pad, j + v - pad];
                if (yi < 0 || yi >= h || xj < 0 || xj >= w) continue;
                const gi = g[(q * oh + i) * ow + j]!;
                const xi = (ch * h + yi) * w + xj;
                const wi = ((q * c + ch) * kh + u) * kw + v;
                wantX[xi]! += gi * wt[wi]!;
                wantW[wi]! += gi * x[xi]!;
              }
    assertAllClose(dX!.dataSync(), wantX, tolerance('float32'), 'dX');
    assertAllClose(dW!.dataSync(), wantW, tolerance('float32'), 'dW');
  });
});
