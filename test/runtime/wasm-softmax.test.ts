// The wasm dialect's float32 softmax rows (as/softmax.ts) against float64 references computed here. A row whose
// elements all lie within 16 of its maximum takes a base-2 exp without a clamp (vexp2NearWith), any other row the
// clamped vexpFlushWith: rows on both sides of that line, rows with one element, -Infinity, and NaNs of any payload
// (which an exp that adds n to the exponent bits would turn into finite numbers).

import { describe, expect, it } from 'vitest';
import { fromStorage, ops, toWasmMemory, withDialect, type Tensor } from '../../runtime/src/index.ts';

function values(n: number, seed: number): number[] {
  let a = seed >>> 0;
  return Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 2 ** 32;
  });
}

/** A [rows, len] float32 tensor in wasm memory holding `xs` bit for bit. */
function resident(xs: Float32Array, rows: number): Tensor {
  return toWasmMemory(fromStorage([rows, xs.length / rows], 'float32', xs));
}

function refRows(xs: ArrayLike<number>, len: number, log: boolean): number[] {
  const out: number[] = [];
  for (let o = 0; o < xs.length / len; o++) {
    const row = Array.from({ length: len }, (_, k) => xs[o * len + k]!);
    const m = Math.max(...row);
    const s = row.reduce((a, v) => a + Math.exp(v - m), 0);
    for (const v of row) out.push(log ? v - m - Math.log(s) : Math.exp(v - m) / s);
  }
  return out;
}

const softmax = (t: Tensor) => Array.from(withDialect(['wasm'], () => ops.softmax(t, -1)).dataSync());
const logSoftmax = (t: Tensor) => Array.from(withDialect(['wasm'], () => ops.logSoftmax(t, -1)).dataSync());

describe('wasm float32 softmax rows', () => {
  // Spans below 16 take the unclamped base-2 exp, the others the clamped one; the lengths cover no whole vector, a
  // partial one, one vector, odd tails, and long rows.
  for (const span of [0.5, 8, 15.5, 16.5, 40, 70])
    for (const len of [1, 3, 4, 5, 8, 9, 33, 1030])
      it(`rows of ${len} spanning ${span}: each element within 2e-6 + |x - max|·2^-24 relative of float64`, () => {
        const rows = 3;
        const xs = Float32Array.from(values(rows * len, len * 13 + span), (u, i) => 5 - span * u + (i % 7) * 1e-3);
        // Each row reaches its full span: its first element sits at the top, its second at the bottom.
        for (let r = 0; r < rows && len > 1; r++) {
          xs[r * len] = 5.01;
          xs[r * len + 1] = 5.01 - span;
        }
        const t = resident(xs, rows);
        const got = softmax(t);
        const want = refRows(xs, len, false);
        for (let i = 0; i < got.length; i++) {
          const row = xs.subarray(Math.floor(i / len) * len, (Math.floor(i / len) + 1) * len);
          const d = xs[i]! - Math.max(...row);
          // x - max rounds to f32 (|d|·2^-24 relative after exp); the exp itself stays under 2e-6 relative.
          expect(Math.abs(got[i]! - want[i]!), `element ${i} of ${got.length}, x - max = ${d}`).toBeLessThanOrEqual(
            (2e-6 - d * 2 ** -24) * want[i]! + 1e-38,
          );
        }
        const lgot = logSoftmax(t);
        const lwant = refRows(xs, len, true);
        for (let i = 0; i < lgot.length; i++)
          expect(Math.abs(lgot[i]! - lwant[i]!), `log_softmax element ${i}`).toBeLessThanOrEqual(
            2e-6 + 1e-7 * Math.abs(lwant[i]!),
          );
      });

  // Short rows, where the normalization adds little, so these bound the exponentials themselves: 4.4e-7 relative for
  // either polynomial, |x - max|·2^-24 for x - max's rounding, and in the unclamped exp |x - max|·7.3e-8 more for y's.
  for (const [span, perD] of [
    [4, 1.4e-7],
    [40, 2 ** -24],
    [100, 2 ** -24],
  ] as const)
    it(`short rows spanning ${span}: each element within 8e-7 + |x - max|·${perD.toPrecision(2)} relative`, () => {
      for (const len of [4, 5, 8, 12]) {
        const rows = 400;
        const xs = Float32Array.from(values(rows * len, len + span), (u) => span * (u - 0.5));
        const got = softmax(resident(xs, rows));
        const want = refRows(xs, len, false);
        for (let i = 0; i < got.length; i++) {
          const row = xs.subarray(Math.floor(i / len) * len, (Math.floor(i / len) + 1) * len);
          const d = xs[i]! - Math.max(...row);
          // Past the flush (about x - max < -87.3) the result is subnormal or 0: absolute error under 2^-126.
          expect(Math.abs(got[i]! - want[i]!), `[${rows}, ${len}] element ${i}, x - max = ${d}`).toBeLessThanOrEqual(
            (8e-7 - d * perD) * want[i]! + 1.2e-38,
          );
        }
      }
    });

  it('a row of one element is exactly 1 (log_softmax exactly 0), whatever its value', () => {
    const xs = Float32Array.from([0, -3.5, 1e30, -1e30, 88, -88, 1e-40]);
    const t = resident(xs, xs.length);
    expect(softmax(t)).toEqual(Array.from(xs, () => 1));
    expect(logSoftmax(t).every((v) => v === 0)).toBe(true);
  });

  it('-Infinity elements give 0 and -Infinity beside finite ones in a row of small span', () => {
    const len = 37;
    const xs = Float32Array.from(values(2 * len, 5), (u) => u * 3);
    for (const at of [2, 17, 36]) xs[at] = -Infinity;
    xs[len + 20] = -Infinity;
    const t = resident(xs, 2);
    const y = softmax(t);
    const ly = logSoftmax(t);
    const want = refRows(xs, len, false);
    const lwant = refRows(xs, len, true);
    for (let i = 0; i < xs.length; i++) {
      if (xs[i] === -Infinity) {
        expect(y[i], `softmax element ${i}`).toBe(0);
        expect(ly[i], `log_softmax element ${i}`).toBe(-Infinity);
      } else {
        expect(Math.abs(y[i]! - want[i]!), `softmax element ${i}`).toBeLessThanOrEqual(1e-6 * want[i]!);
        expect(Math.abs(ly[i]! - lwant[i]!), `log_softmax element ${i}`).toBeLessThanOrEqual(1e-6);
      }
    }
  });

  it('a NaN with any payload, in a whole vector or in the tail, makes its row NaN and leaves the others alone', () => {
    const len = 43; // ten whole vectors and a tail of three
    for (const bits of [0x7fc00000, 0x7fc0abcd, 0xffc00001, 0x7f800001, 0xff812345])
      for (const at of [0, 5, 21, 40, 42]) {
        const xs = Float32Array.from(values(3 * len, at + bits), (u) => u * 4 - 2);
        new Uint32Array(xs.buffer)[len + at] = bits;
        const t = resident(xs, 3);
        const what = `NaN 0x${bits.toString(16)} at ${at}`;
        const y = softmax(t);
        const ly = logSoftmax(t);
        expect(y.slice(len, 2 * len).every(Number.isNaN), `softmax, ${what}`).toBe(true);
        expect(ly.slice(len, 2 * len).every(Number.isNaN), `log_softmax, ${what}`).toBe(true);
        const want = refRows(xs, len, false);
        for (const i of [...Array(len).keys(), ...Array.from({ length: len }, (_, k) => 2 * len + k)])
          expect(Math.abs(y[i]! - want[i]!), `softmax element ${i}, ${what}`).toBeLessThanOrEqual(1e-6 * want[i]!);
      }
  });
});
