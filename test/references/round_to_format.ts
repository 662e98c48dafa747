// Hand-written float64 reference of raf.op.round_to_format (specs/quant/round_to_format.yaml, `tests.reference: true`):
// the oracle its generated test compares every case with. Written apart from the kernel (runtime/src/formats.ts): each
// float format's values are listed from its exponent and mantissa widths, and a number goes to the nearest listed one
// by search, ties to the even neighbour; e8m0 and the integer formats follow their definitions directly.

import type { Tensor } from '../../runtime/src/index.ts';

interface FloatFormat {
  readonly exp: number;
  readonly man: number;
  readonly bias: number;
  /** What the all-ones patterns are: IEEE infinities/NaN, one NaN (fn), the -0 pattern as NaN (fnuz), nothing. */
  readonly special: 'ieee' | 'fn' | 'fnuz' | 'none';
}

const FLOATS: Readonly<Record<string, FloatFormat>> = {
  float8e4m3fn: { exp: 4, man: 3, bias: 7, special: 'fn' },
  float8e4m3fnuz: { exp: 4, man: 3, bias: 8, special: 'fnuz' },
  float8e5m2: { exp: 5, man: 2, bias: 15, special: 'ieee' },
  float8e5m2fnuz: { exp: 5, man: 2, bias: 16, special: 'fnuz' },
  float4e2m1: { exp: 2, man: 1, bias: 1, special: 'none' },
};

/** The format's non-negative finite values, ascending: subnormals (from 0), then each binade. */
function positives(f: FloatFormat): number[] {
  const steps = 2 ** f.man;
  const emin = 1 - f.bias;
  // An IEEE format gives its top exponent to infinities and NaN; fn gives its very last pattern to NaN.
  const emax = (f.special === 'ieee' ? 2 ** f.exp - 2 : 2 ** f.exp - 1) - f.bias;
  const out: number[] = [];
  for (let m = 0; m < steps; m++) out.push((m / steps) * 2 ** emin);
  for (let e = emin; e <= emax; e++) for (let m = 0; m < steps; m++) out.push((1 + m / steps) * 2 ** e);
  if (f.special === 'fn') out.pop();
  return out;
}

function nearest(values: readonly number[], a: number, saturate: boolean, f: FloatFormat): number {
  const max = values[values.length - 1]!;
  // One step past the largest value, as if the format went on: a tie with it goes to whichever of the two is even.
  const next = max + (max - values[values.length - 2]!);
  const candidates = [...values.map((v, i) => [v, i] as const), [next, values.length] as const];
  let best = candidates[0]!;
  for (const c of candidates) {
    const d = Math.abs(c[0] - a);
    const bd = Math.abs(best[0] - a);
    if (d < bd || (d === bd && c[1] % 2 === 0)) best = c;
  }
  if (best[1] < values.length) return best[0];
  return saturate || f.special === 'none' ? max : f.special === 'ieee' ? Infinity : NaN;
}

function floatReference(f: FloatFormat, saturate: boolean): (v: number) => number {
  const values = positives(f);
  return (v) => {
    if (Number.isNaN(v)) return f.special === 'none' ? -0 : NaN;
    const a = Math.abs(v);
    // An infinity is past every value: the largest with saturate (always for float4), else infinity or NaN.
    const overflow =
      saturate || f.special === 'none' ? values[values.length - 1]! : f.special === 'ieee' ? Infinity : NaN;
    const r = a === Infinity ? overflow : nearest(values, a, saturate, f);
    if (Number.isNaN(r)) return NaN;
    if (f.special === 'fnuz' && r === 0) return 0;
    return v < 0 || Object.is(v, -0) ? -r : r;
  };
}

/** Powers of two 2^-127 ... 2^127 from the float32 value's binade: rounded up, down or at 1.5 of it. */
function e8m0Reference(saturate: boolean, mode: string): (v: number) => number {
  return (v) => {
    const a = Math.abs(Math.fround(v));
    if (!Number.isFinite(a)) return NaN;
    if (a < 2 ** -126) return a > 0 && mode === 'up' ? 2 ** -126 : 2 ** -127;
    // The binade by search from above: 2^e <= a < 2^(e+1).
    let e = 128;
    while (2 ** e > a) e--;
    const m = a / 2 ** e;
    const k = mode === 'up' ? (m > 1 ? e + 1 : e) : mode === 'nearest' ? (m >= 1.5 ? e + 1 : e) : e;
    if (k > 127) return saturate ? 2 ** 127 : NaN;
    return 2 ** k;
  };
}

function intReference(bits: number, signed: boolean): (v: number) => number {
  const m = BigInt(2 ** bits);
  return (v) => {
    if (!Number.isFinite(v)) return 0;
    let u = BigInt(Math.trunc(v)) % m;
    if (u < 0n) u += m;
    return Number(signed && u >= m / 2n ? u - m : u);
  };
}

const INTS: Readonly<Record<string, readonly [number, boolean]>> = {
  int4: [4, true],
  uint4: [4, false],
  int2: [2, true],
  uint2: [2, false],
};

export function reference(
  inputs: Readonly<Record<string, Tensor | null>>,
  args: Readonly<Record<string, unknown>>,
): number[] {
  const format = args.format as string;
  const saturate = args.saturate as boolean;
  const round = FLOATS[format]
    ? floatReference(FLOATS[format]!, saturate)
    : INTS[format]
      ? intReference(...INTS[format]!)
      : format === 'float8e8m0'
        ? e8m0Reference(saturate, args.round_mode as string)
        : null;
  if (!round) throw new Error(`no reference for format ${format}`);
  return Array.from(inputs.x!.dataSync() as ArrayLike<number>, (v) => round(Number(v)));
}
