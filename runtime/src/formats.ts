// Narrow number formats: ONNX's 8-, 4- and 2-bit element types (float8 in four flavours and e8m0, float4e2m1, int4,
// uint4, int2, uint2). raf-op has no tensor dtype for them; a value of such a type is held in a carrier, the smallest
// raf-op dtype that holds every value of the format exactly: float32 for the float formats, int8 for the signed
// integer ones and uint8 for the unsigned ones. This module knows each format's values (decoding its bits, ONNX's
// packing of 4- and 2-bit elements) and how a number rounds to it (ONNX's Cast rules), for the importer and the
// round_to_format kernel.

import type { DType } from './dtype.ts';

export const NARROW_FORMATS = [
  'float8e4m3fn',
  'float8e4m3fnuz',
  'float8e5m2',
  'float8e5m2fnuz',
  'float8e8m0',
  'float4e2m1',
  'int4',
  'uint4',
  'int2',
  'uint2',
] as const;

export type NarrowFormat = (typeof NARROW_FORMATS)[number];

export function isNarrowFormat(s: unknown): s is NarrowFormat {
  return typeof s === 'string' && (NARROW_FORMATS as readonly string[]).includes(s);
}

/**
 * A float format's layout: exponent and mantissa bits, the exponent bias, and which bit patterns are special.
 * 'ieee': an all-ones exponent is infinity (mantissa 0) or NaN; 'fn': only all-ones exponent and mantissa is NaN, no
 * infinity; 'fnuz': only the negative-zero pattern is NaN (no -0, no infinity); 'none': every pattern is a number.
 */
interface FloatLayout {
  readonly exp: number;
  readonly man: number;
  readonly bias: number;
  readonly special: 'ieee' | 'fn' | 'fnuz' | 'none';
}

const FLOAT_LAYOUTS: Readonly<Record<string, FloatLayout>> = {
  float8e4m3fn: { exp: 4, man: 3, bias: 7, special: 'fn' },
  float8e4m3fnuz: { exp: 4, man: 3, bias: 8, special: 'fnuz' },
  float8e5m2: { exp: 5, man: 2, bias: 15, special: 'ieee' },
  float8e5m2fnuz: { exp: 5, man: 2, bias: 16, special: 'fnuz' },
  float4e2m1: { exp: 2, man: 1, bias: 1, special: 'none' },
};

const INT_LAYOUTS: Readonly<Record<string, { readonly bits: number; readonly signed: boolean }>> = {
  int4: { bits: 4, signed: true },
  uint4: { bits: 4, signed: false },
  int2: { bits: 2, signed: true },
  uint2: { bits: 2, signed: false },
};

/** Bits per element. */
export function formatBits(f: NarrowFormat): number {
  const fl = FLOAT_LAYOUTS[f];
  if (fl) return 1 + fl.exp + fl.man;
  return INT_LAYOUTS[f]?.bits ?? 8;
}

/** The raf-op dtype a format's values are held in. */
export function carrierOf(f: NarrowFormat): DType {
  const int = INT_LAYOUTS[f];
  return int ? (int.signed ? 'int8' : 'uint8') : 'float32';
}

/** The value of one element's bit pattern. */
export function decodeFormat(f: NarrowFormat, bits: number): number {
  const int = INT_LAYOUTS[f];
  if (int) {
    const v = bits & ((1 << int.bits) - 1);
    return int.signed && v >= 1 << (int.bits - 1) ? v - (1 << int.bits) : v;
  }
  if (f === 'float8e8m0') return (bits & 0xff) === 0xff ? NaN : 2 ** ((bits & 0xff) - 127);
  const l = FLOAT_LAYOUTS[f]!;
  const width = 1 + l.exp + l.man;
  const b = bits & ((1 << width) - 1);
  const negative = (b >> (l.exp + l.man)) & 1;
  const e = (b >> l.man) & ((1 << l.exp) - 1);
  const m = b & ((1 << l.man) - 1);
  const allExp = (1 << l.exp) - 1;
  if (l.special === 'fnuz' && b === 1 << (l.exp + l.man)) return NaN;
  if (l.special === 'fn' && e === allExp && m === (1 << l.man) - 1) return NaN;
  if (l.special === 'ieee' && e === allExp) return m ? NaN : negative ? -Infinity : Infinity;
  const magnitude = e === 0 ? m * 2 ** (1 - l.bias - l.man) : (1 + m / 2 ** l.man) * 2 ** (e - l.bias);
  return negative ? -magnitude : magnitude;
}

const tables = new Map<NarrowFormat, Float32Array>();

/** Every bit pattern's value, by pattern (built once per format). */
function tableOf(f: NarrowFormat): Float32Array {
  let t = tables.get(f);
  if (!t) {
    t = new Float32Array(1 << formatBits(f));
    for (let b = 0; b < t.length; b++) t[b] = decodeFormat(f, b);
    tables.set(f, t);
  }
  return t;
}

/** The largest finite value of a float format. */
export function formatMax(f: NarrowFormat): number {
  let max = -Infinity;
  for (const v of tableOf(f)) if (Number.isFinite(v) && v > max) max = v;
  return max;
}

/** x rounded to an integer, ties to even. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** floor(log2(a)) for a finite a > 0, exact (Math.log2 may be one off next to a power of two). */
function exponentOf(a: number): number {
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  return e;
}

export type RoundMode = 'up' | 'down' | 'nearest';

/**
 * How a number becomes a value of the format, as ONNX's Cast converts to it (the value is returned as a number).
 * - float8 and float4: round to nearest, ties to even. A result beyond the largest finite value, and an infinity,
 *   becomes that value with `saturate`; without it, infinity where the format has one (float8e5m2) and NaN elsewhere.
 *   float4e2m1 has no NaN and always saturates; NaN becomes -0 there, as ONNX's reference (ml_dtypes) converts it.
 *   The fnuz formats have no -0.
 * - float8e8m0 (powers of two, 2^-127 to 2^127): from the float32 value's exponent bits, rounded up (any fraction),
 *   down, or to nearest as `roundMode` says; the sign is ignored; NaN and infinities become NaN; `saturate` keeps a
 *   rounding from going past 2^127.
 * - int4, uint4, int2, uint2: truncated toward zero and wrapped (two's complement), as ONNX casts to a narrower
 *   integer; NaN and infinities (undefined in ONNX) become 0.
 */
export function rounderFor(f: NarrowFormat, saturate = true, roundMode: RoundMode = 'up'): (v: number) => number {
  const int = INT_LAYOUTS[f];
  if (int) {
    const m = 2 ** int.bits;
    return (v) => {
      if (!Number.isFinite(v)) return 0;
      const t = Math.trunc(v);
      const u = t - Math.floor(t / m) * m;
      return int.signed && u >= m / 2 ? u - m : u;
    };
  }
  if (f === 'float8e8m0') return e8m0Rounder(saturate, roundMode);
  const l = FLOAT_LAYOUTS[f]!;
  const max = formatMax(f);
  const emin = 1 - l.bias;
  const always = l.special === 'none';
  return (v) => {
    if (v !== v) return always ? -0 : NaN;
    const negative = v < 0 || Object.is(v, -0);
    const a = Math.abs(v);
    let r: number;
    if (a === Infinity) r = Infinity;
    else if (a === 0) r = 0;
    else {
      const q = 2 ** (Math.max(exponentOf(a), emin) - l.man);
      r = roundHalfEven(a / q) * q;
    }
    if (r > max) r = saturate || always ? max : l.special === 'ieee' ? Infinity : NaN;
    if (r !== r) return NaN;
    if (l.special === 'fnuz' && r === 0) return 0;
    return negative ? -r : r;
  };
}

function e8m0Rounder(saturate: boolean, mode: RoundMode): (v: number) => number {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  return (v) => {
    f[0] = v;
    const bits = u[0]!;
    let e = (bits >>> 23) & 0xff;
    if (e === 0xff) return NaN;
    let up = false;
    if (mode === 'up') up = (bits & 0x7fffff) !== 0;
    else if (mode === 'nearest') {
      // Guard, round and sticky bits of the fraction below the exponent, as ONNX's reference rounds.
      const guard = (bits & 0x400000) !== 0;
      const round = (bits & 0x200000) !== 0;
      const sticky = (bits & 0x1fffff) !== 0;
      up = guard && (round || sticky || e > 0);
    }
    if (up && !(saturate && e === 0xfe)) e++;
    return e === 0xff ? NaN : 2 ** (e - 127);
  };
}

/** A typed array of the format's carrier dtype. */
function carrierArray(f: NarrowFormat, n: number): Float32Array | Int8Array | Uint8Array {
  const c = carrierOf(f);
  return c === 'float32' ? new Float32Array(n) : c === 'int8' ? new Int8Array(n) : new Uint8Array(n);
}

/** Bytes ONNX stores n elements of the format in (4- and 2-bit elements packed, the last byte padded). */
export function packedLength(f: NarrowFormat, n: number): number {
  return Math.ceil((n * formatBits(f)) / 8);
}

/**
 * n elements of the format from ONNX's bytes (raw_data, or int32_data narrowed to bytes): 8-bit formats one byte
 * each; 4-bit ones two to a byte and 2-bit ones four, the first element in the lowest bits.
 */
export function unpackFormat(
  f: NarrowFormat,
  bytes: ArrayLike<number>,
  n: number,
): Float32Array | Int8Array | Uint8Array {
  const bits = formatBits(f);
  const per = 8 / bits;
  const mask = (1 << bits) - 1;
  const table = tableOf(f);
  const out = carrierArray(f, n);
  for (let i = 0; i < n; i++) out[i] = table[(bytes[Math.floor(i / per)]! >> ((i % per) * bits)) & mask]!;
  return out;
}

/** Bit pattern of each value of the format (NaN to the pattern whose value is NaN, -0 kept where the format has it). */
function encoderOf(f: NarrowFormat): (v: number) => number {
  const table = tableOf(f);
  const byValue = new Map<string, number>();
  for (let b = table.length - 1; b >= 0; b--) byValue.set(Object.is(table[b], -0) ? '-0' : String(table[b]), b);
  return (v) => {
    const b = byValue.get(Object.is(v, -0) ? '-0' : String(v)) ?? (Object.is(v, -0) ? byValue.get('0') : undefined);
    if (b === undefined) throw new Error(`${v} is not a ${f} value`);
    return b;
  };
}

/** ONNX's bytes for values of the format (each must be one: round them first); the inverse of unpackFormat. */
export function packFormat(f: NarrowFormat, values: ArrayLike<number>): Uint8Array {
  const bits = formatBits(f);
  const per = 8 / bits;
  const encode = encoderOf(f);
  const out = new Uint8Array(packedLength(f, values.length));
  for (let i = 0; i < values.length; i++) {
    const k = Math.floor(i / per);
    out[k] = out[k]! | (encode(values[i]!) << ((i % per) * bits));
  }
  return out;
}

/** A test of whether a number is a value of the format (NaN is one where the format has NaN; -0 passes as 0). */
export function memberOf(f: NarrowFormat): (v: number) => boolean {
  const values = new Set(tableOf(f));
  return (v) => values.has(v);
}
