// The wasm dialect's vector exp, sigmoid, tanh, erf, softplus, sin, cos and log (as/vmath.ts) against float64 references over their whole range:
// saturation far out, ±Infinity, NaN, -0, and a length that is no multiple of the vector width.

import { describe, expect, it } from 'vitest';
import { ops, tensor, withDialect } from '../../runtime/src/index.ts';

/** -120..120 densely near zero and sparsely far out, the special values, and an odd count. */
const xs = [
  ...Array.from({ length: 401 }, (_, i) => (i - 200) / 20),
  ...Array.from({ length: 97 }, (_, i) => -120 + i * 2.5),
  88.7,
  88.8,
  -87.3,
  -87.4,
  -103,
  Infinity,
  -Infinity,
  NaN,
  -0,
  0,
];
const input = Float32Array.from(xs);

/**
 * erf in float64 by its definition, 2/√π ∫₀ˣ e^(−t²) dt, with composite Simpson over 4000 steps (error under 1e-13
 * here); ±1 past |x| = 6, where erfc is below 3e-17.
 */
function erfByIntegral(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const a = Math.abs(x);
  if (a > 6) return Math.sign(x);
  const n = 4000;
  const h = a / n;
  let sum = 1 + Math.exp(-a * a);
  for (let i = 1; i < n; i++) sum += (i % 2 ? 4 : 2) * Math.exp(-(i * h) * (i * h));
  const v = ((sum * h) / 3) * (2 / Math.sqrt(Math.PI));
  return x < 0 || Object.is(x, -0) ? -v : v;
}

const refs = {
  exp: Math.exp,
  erf: erfByIntegral,
  softplus: (x: number) => Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x))),
  sin: Math.sin,
  cos: Math.cos,
  sigmoid: (x: number) => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x))),
  tanh: Math.tanh,
} as const;

describe('wasm vector math', () => {
  for (const op of ['exp', 'sigmoid', 'tanh', 'erf', 'softplus', 'sin', 'cos'] as const)
    it(`${op} is within 4e-7 relative (or 1e-37 absolute) of float64, with NaN, ±Infinity and -0 exact`, () => {
      const got = withDialect(['wasm'], () => ops[op](tensor(input))).dataSync();
      expect(got.length).toBe(input.length);
      for (let i = 0; i < input.length; i++) {
        const x = input[i]!;
        const want = refs[op](x);
        const g = got[i]!;
        if (Number.isNaN(want)) expect(g, `${op}(${x})`).toBeNaN();
        else if (!Number.isFinite(want) || want === 0)
          expect(Object.is(g, Math.fround(want)) || (want === 0 && Math.abs(g) < 1e-37), `${op}(${x}) = ${g}`).toBe(
            true,
          );
        else {
          const f = Math.fround(want);
          // Past f32's range the answer is Infinity or a flush to 0; within it, a few ulps.
          if (!Number.isFinite(f)) expect(g, `${op}(${x})`).toBe(f);
          else
            expect(Math.abs(g - want) <= 4e-7 * Math.abs(want) + 1e-37, `${op}(${x}) = ${g}, want ${want}`).toBe(true);
        }
      }
      if (op === 'tanh' || op === 'erf' || op === 'sin') expect(Object.is(got[input.length - 2], -0)).toBe(true);
    });
});

describe('wasm elementwise loops', () => {
  // The generated loops of ops that call these functions take two vectors a step, then one for an odd vector left over:
  // every length gives each element the value it gets inside a longer run.
  for (const op of ['exp', 'sigmoid', 'tanh', 'erf', 'softplus', 'sin', 'cos'] as const)
    it(`${op} over 1–13 elements equals the same elements of a longer run, float32 and float64`, () => {
      for (const dtype of ['float32', 'float64'] as const) {
        const all = withDialect(['wasm'], () => ops[op](tensor(input.slice(380, 400), { dtype }))).dataSync();
        for (let n = 1; n <= 13; n++) {
          const part = withDialect(['wasm'], () => ops[op](tensor(input.slice(380, 380 + n), { dtype }))).dataSync();
          expect(Array.from(part), `${op} ${dtype} n=${n}`).toEqual(Array.from(all.slice(0, n)));
        }
      }
    });
});

/** The least float32 whose erf rounds to 1 in float32 (erfc(x) < 2^-25 from there on): vmath.ts returns ±1 from it. */
const ERF_ONE = Math.fround(3.919205904006958);

describe('wasm vector erf', () => {
  it('is within 4e-7 relative of the integral on a dense grid, tiny values and both sides of where it turns to ±1', () => {
    const edge = [-2, -1, 0, 1, 2].map((k) => Math.fround(ERF_ONE * (1 + k * 2 ** -23)));
    const grid = Float32Array.from([
      ...Array.from({ length: 5001 }, (_, i) => -5 + i / 500),
      ...Array.from({ length: 40 }, (_, i) => 10 ** (i - 38)),
      ...edge,
      ...edge.map((v) => -v),
    ]);
    const got = withDialect(['wasm'], () => ops.erf(tensor(grid))).dataSync();
    let worst = 0;
    grid.forEach((x, i) => {
      const want = erfByIntegral(x);
      if (want !== 0) worst = Math.max(worst, Math.abs(got[i]! - want) / Math.abs(want));
    });
    expect(worst).toBeLessThan(4e-7);
  });
});

describe('wasm vector erf past its rounding to ±1', () => {
  it('is exactly ±1 (erf rounded to float32) from |x| = 3.9192059 out, ±Infinity included, in vectors with smaller lanes', () => {
    expect(Math.fround(erfByIntegral(ERF_ONE))).toBe(1);
    expect(Math.fround(erfByIntegral(Math.fround(ERF_ONE * (1 - 2 ** -23))))).toBeLessThan(1);
    const far = [ERF_ONE, 4, 4.5, 5, 9, 1e3, 3e38, Infinity];
    const xs = Float32Array.from(far.flatMap((v) => [v, 0.5, -v, -3]));
    const got = withDialect(['wasm'], () => ops.erf(tensor(xs))).dataSync();
    for (let i = 0; i < xs.length; i += 4) {
      expect(got[i], `erf(${xs[i]})`).toBe(1);
      expect(got[i + 2], `erf(${xs[i + 2]})`).toBe(-1);
    }
  });
});

describe('wasm vector sin and cos', () => {
  it('are within 2e-7 relative of float64 out to |x| = 8192, and past it (lane by lane) exactly float64 rounded', () => {
    const near = Array.from({ length: 20001 }, (_, i) => -10 + i / 1000);
    const far = Array.from({ length: 4001 }, (_, i) => -8192 + i * 4.096);
    // Next to multiples of π (where r is small and the reduction's error counts most), and vectors with one lane past
    // the range, which go lane by lane: 1e5 and 3e7 beside ordinary values.
    const pis = Array.from({ length: 200 }, (_, k) => Math.fround((k - 100) * 25 * Math.PI));
    const past = [1e5, 0.5, 1, 2, -3e7, 3, 4, 5];
    const grid = Float32Array.from([...near, ...far, ...pis, ...past]);
    for (const op of ['sin', 'cos'] as const) {
      const got = withDialect(['wasm'], () => ops[op](tensor(grid))).dataSync();
      let worst = 0;
      grid.forEach((x, i) => {
        const want = Math[op](x);
        if (Math.abs(x) > 8192) expect(got[i], `${op}(${x})`).toBe(Math.fround(want));
        else if (want === 0) expect(got[i], `${op}(${x})`).toBe(0);
        else worst = Math.max(worst, Math.abs(got[i]! - want) / Math.abs(want));
      });
      expect(worst, op).toBeLessThan(2e-7);
    }
  });
});

describe('wasm vector log', () => {
  /** Subnormal to the largest float, densely around 1 (where ln x nears 0), the √2 boundary, and the special values. */
  const logInputs = Float32Array.from([
    ...Array.from({ length: 90 }, (_, i) => 10 ** (i - 45)),
    ...Array.from({ length: 401 }, (_, i) => 0.5 + i / 200),
    ...Array.from({ length: 41 }, (_, i) => 1 + (i - 20) * 2 ** -23),
    Math.SQRT2,
    Math.SQRT1_2,
    2 ** -149,
    2 ** -127,
    2 ** -126,
    3.4028234e38,
    1,
    2,
    0.75,
    Infinity,
    -Infinity,
    NaN,
    -1,
    -1e-30,
    0,
    -0,
  ]);

  it('log is within 4e-7 relative (or 1e-37 absolute) of float64, with 0, negatives, ±Infinity and NaN exact', () => {
    const got = withDialect(['wasm'], () => ops.log(tensor(logInputs))).dataSync();
    expect(got.length).toBe(logInputs.length);
    for (let i = 0; i < logInputs.length; i++) {
      const x = logInputs[i]!;
      const want = Math.log(x);
      const g = got[i]!;
      if (Number.isNaN(want)) expect(g, `log(${x})`).toBeNaN();
      else if (!Number.isFinite(want)) expect(g, `log(${x})`).toBe(want);
      else expect(Math.abs(g - want) <= 4e-7 * Math.abs(want) + 1e-37, `log(${x}) = ${g}, want ${want}`).toBe(true);
    }
  });
});

describe('wasm power', () => {
  const bases = Float32Array.from([
    ...Array.from({ length: 101 }, (_, i) => (i - 50) / 7),
    1.8446744e19,
    1.8446746e19,
    -3e30,
    1e-20,
    -1e-23,
    2 ** -75,
    0,
    -0,
    Infinity,
    -Infinity,
    NaN,
  ]);
  it('x^2 (every exponent 2, the fast path) is the correctly rounded square, overflow, underflow and NaN included', () => {
    const got = withDialect(['wasm'], () => ops.power(tensor(bases), tensor(2, { dtype: 'float32' }))).dataSync();
    bases.forEach((x, i) => expect(Object.is(got[i], Math.fround(x * x)), `${x}^2 = ${got[i]}`).toBe(true));
  });
  it('x^2 where one exponent of a vector differs goes lane by lane, still exact', () => {
    const exps = Float32Array.from(bases, (_, i) => (i % 4 === 3 ? 3 : 2));
    const got = withDialect(['wasm'], () => ops.power(tensor(bases), tensor(exps))).dataSync();
    bases.forEach((x, i) => {
      const want = Math.fround(Math.pow(x, exps[i]!));
      expect(Object.is(got[i], want) || Math.abs(got[i]! - want) <= 1e-7 * Math.abs(want), `${x}^${exps[i]}`).toBe(
        true,
      );
    });
  });
});
