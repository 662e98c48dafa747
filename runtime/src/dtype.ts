// The dtype vocabulary of the runtime: names, storage arrays, and the rules that relate them.
//
// Integer dtypes and their storage:
// - int32, int8, uint8 live in Int32Array, Int8Array, Uint8Array: arithmetic wraps modulo 2^bits on write, as NumPy's
//   and TVM's fixed-width integers do.
// - int64 lives in a Float64Array holding integers, exact to ±2^53 (Number.MAX_SAFE_INTEGER). int64 in this runtime is
//   for indices, shapes and token ids, far inside that range; a BigInt64Array would be exact to 2^63 but every kernel
//   would need a BigInt path (BigInt and number do not mix in arithmetic) and BigInt math is many times slower. The
//   price is the range: a value beyond ±2^53 is refused with an OpError naming the op and argument (tensor
//   construction, cast, every int64 result of a kernel), never rounded silently. A non-integer result (int64 divide)
//   truncates toward zero, as int32 storage does.
//
// Casts (castScalar): float → integer truncates toward zero; then int32/int8/uint8 wrap modulo 2^bits (two's
// complement), as NumPy's astype and TVM's cast do for integer → integer (float → integer out of range is undefined in
// both; wrapping is what C's conversion through int64 gives). NaN and ±Infinity become 0 for wrapping dtypes. int64
// does not wrap: NaN, ±Infinity and values beyond ±2^53 are refused (checkInt64).

import { OpError } from './errors.ts';

export const DTYPES = ['float16', 'float32', 'float64', 'int64', 'int32', 'int8', 'uint8', 'bool'] as const;
export type DType = (typeof DTYPES)[number];

export type FloatDType = 'float16' | 'float32' | 'float64';
export type IntDType = 'int64' | 'int32' | 'int8' | 'uint8';

/** CPU storage per dtype. float16 is stored widened in a Float32Array and rounded on write; int64 as above. */
export type StorageOf = {
  float16: Float32Array;
  float32: Float32Array;
  float64: Float64Array;
  int64: Float64Array;
  int32: Int32Array;
  int8: Int8Array;
  uint8: Uint8Array;
  bool: Uint8Array;
};
export type Storage = StorageOf[DType];

const STORAGE: { [D in DType]: { new (n: number): StorageOf[D]; from(a: ArrayLike<number>): StorageOf[D] } } = {
  float16: Float32Array,
  float32: Float32Array,
  float64: Float64Array,
  int64: Float64Array,
  int32: Int32Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

export function isDType(v: unknown): v is DType {
  return typeof v === 'string' && (DTYPES as readonly string[]).includes(v);
}

export function isFloat(d: DType): d is FloatDType {
  return d === 'float16' || d === 'float32' || d === 'float64';
}

export function isInteger(d: DType): d is IntDType {
  return d === 'int64' || d === 'int32' || d === 'int8' || d === 'uint8';
}

/** The largest magnitude int64 storage holds exactly (2^53 - 1, Number.MAX_SAFE_INTEGER). */
export const INT64_EXACT = Number.MAX_SAFE_INTEGER;

/**
 * Checks int64 values (already truncated by castScalar) are integers storage holds exactly: NaN, ±Infinity and
 * anything beyond ±(2^53 - 1) is an OpError naming `op` and `arg`, with the first offending value and its index.
 */
export function checkInt64(op: string, arg: string, values: ArrayLike<number>): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isSafeInteger(v)) throw int64Error(op, arg, v, i, values.length);
  }
}

function int64Error(op: string, arg: string, v: number | bigint, i: number, n: number): OpError {
  // Integral doubles print exactly (2^60 as 1152921504606846976, not 1152921504606847000).
  const text = typeof v === 'number' && Number.isInteger(v) ? BigInt(v).toString() : String(v);
  return new OpError(
    op,
    `int64 value ${text}${n > 1 ? ` at index ${i}` : ''} is ${typeof v === 'number' && !Number.isFinite(v) ? 'not a finite integer' : 'beyond ±2^53'}: ` +
      `raf-op stores int64 exactly only within ±${INT64_EXACT} (Number.MAX_SAFE_INTEGER) and refuses rather than rounds`,
    arg,
  );
}

/** int64 values from BigInts (a BigInt64Array or a list of bigint), refusing any beyond ±2^53 by op and argument. */
export function int64FromBigInts(op: string, arg: string, values: ArrayLike<bigint>): Float64Array {
  const out = new Float64Array(values.length);
  const limit = BigInt(INT64_EXACT);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > limit || v < -limit) throw int64Error(op, arg, v, i, values.length);
    out[i] = Number(v);
  }
  return out;
}

/**
 * Truncates an int64 kernel result in place (a divide's quotient goes toward zero, as int32 storage does) and checks
 * it stays exact; what integer math overflowing 2^53 would round is refused by op, never kept rounded.
 */
export function finishInt64(op: string, arg: string, a: Float64Array): void {
  for (let i = 0; i < a.length; i++) {
    const v = Math.trunc(a[i]!);
    if (!Number.isSafeInteger(v)) throw int64Error(op, arg, a[i]!, i, a.length);
    a[i] = v;
  }
}

export function allocStorage<D extends DType>(dtype: D, size: number): StorageOf[D] {
  return new STORAGE[dtype](size) as StorageOf[D];
}

/**
 * Copies values into fresh storage of `dtype`, applying that dtype's rounding; int64 values beyond ±2^53 (or not
 * finite) are an OpError naming `op` and `arg`.
 */
export function toStorage<D extends DType>(
  dtype: D,
  values: ArrayLike<number>,
  op = 'tensor',
  arg = 'values',
): StorageOf[D] {
  const out = allocStorage(dtype, values.length);
  for (let i = 0; i < values.length; i++) out[i] = castScalar(dtype, values[i]!);
  if (dtype === 'int64') checkInt64(op, arg, out);
  return out;
}

const f16Scratch = new Float32Array(1);
const f16Bits = new Uint32Array(f16Scratch.buffer);
const f64Scratch = new DataView(new ArrayBuffer(8));

/** The unbiased binary exponent of a finite positive float64, read from its bits (exact, unlike Math.log2). */
function exponentOf(a: number): number {
  f64Scratch.setFloat64(0, a);
  const biased = (f64Scratch.getUint32(0) >>> 20) & 0x7ff;
  // float64 subnormals lie far below float16's range and are handled by the caller.
  return biased - 1023;
}

/**
 * Rounds a number to the nearest float16 value (round-half-to-even), kept as a JS number. One rounding, straight from
 * float64: dividing by the binade's power-of-two quantum is exact, so ties are detected exactly.
 */
export function roundToFloat16(v: number): number {
  if (!Number.isFinite(v)) return v;
  const a = Math.abs(v);
  if (a >= 65520) return v > 0 ? Infinity : -Infinity;
  // Underflow keeps the sign: -0 stays -0, as IEEE rounding gives. 2^-25 is the tie between 0 and 2^-24; even is 0.
  if (a <= 2 ** -25) return v < 0 || Object.is(v, -0) ? -0 : 0;
  // The quantum of a's float16 binade (subnormals share 2^-24); q = a / quantum is exact in float64.
  const quantum = 2 ** (Math.max(exponentOf(a), -14) - 10);
  const q = a / quantum;
  const floor = Math.floor(q);
  const rest = q - floor;
  const r = rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return Math.sign(v) * r * quantum;
}

/** The IEEE binary16 bits of `v` rounded to float16 (round-half-to-even, as roundToFloat16); NaN is 0x7e00. */
export function float16Bits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const r = roundToFloat16(v);
  const sign = r < 0 || Object.is(r, -0) ? 0x8000 : 0;
  const a = Math.abs(r);
  if (a === Infinity) return sign | 0x7c00;
  // Subnormals (and zero) count in units of 2^-24; r is a float16 value, so the scaling is exact.
  if (a < 2 ** -14) return sign | (a * 2 ** 24);
  f16Scratch[0] = a;
  const exp = ((f16Bits[0]! >>> 23) & 0xff) - 127;
  return sign | ((exp + 15) << 10) | (a * 2 ** (10 - exp) - 1024);
}

/** The number an IEEE binary16 bit pattern holds. */
export function float16FromBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exp === 0) return sign * mantissa * 2 ** -24;
  if (exp === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1024 + mantissa) * 2 ** (exp - 25);
}

export function castScalar(dtype: DType, v: number): number {
  switch (dtype) {
    case 'float16':
      return roundToFloat16(v);
    case 'int32':
      return Math.trunc(v) | 0;
    case 'int64':
      // Refused by checkInt64 when not a safe integer; the callers that write int64 storage run it.
      return Math.trunc(v);
    case 'int8':
      return ((Math.trunc(v) | 0) << 24) >> 24;
    case 'uint8':
      return (Math.trunc(v) | 0) & 0xff;
    case 'bool':
      return v ? 1 : 0;
    default:
      return v;
  }
}
