// The dtype vocabulary of the runtime: names, storage arrays, and the rules that relate them.
//
// Integer dtypes and their storage:
// - int32, int16, int8, uint32, uint16, uint8 live in Int32Array, Int16Array, Int8Array, Uint32Array, Uint16Array,
//   Uint8Array: arithmetic wraps modulo 2^bits on write, as NumPy's, ONNX's and TVM's fixed-width integers do (the
//   typed array's store is exactly that conversion for any integral number, exact products included).
// - int64 and uint64 live in a Float64Array holding integers, exact to ±2^53 (Number.MAX_SAFE_INTEGER). int64 in this
//   runtime is for indices, shapes and token ids, far inside that range; a BigInt64Array would be exact to 2^63 but
//   every kernel would need a BigInt path (BigInt and number do not mix in arithmetic) and BigInt math is many times
//   slower. The price is the range: a value beyond ±2^53 (for uint64: below 0 or beyond 2^53 - 1, which is where
//   wrapping modulo 2^64 would land) is refused with an OpError naming the op and argument (tensor construction, cast,
//   every int64/uint64 result of a kernel), never rounded silently. A non-integer result (an integer divide)
//   truncates toward zero, as int32 storage does.
//
// Float dtypes: float32 and float64 in their own arrays; float16 and bfloat16 are stored widened in a Float32Array and
// rounded on write (round-half-to-even: float16 from the exact value, bfloat16 on the top 16 bits of the float32, as
// ONNX's Cast and PyTorch do), so kernels compute in float32 and round once at the store.
//
// Casts (castScalar): float → integer truncates toward zero; then the fixed-width integers wrap modulo 2^bits (two's
// complement), as NumPy's astype and TVM's cast do for integer → integer (float → integer out of range is undefined in
// both and in ONNX; wrapping is what C's conversion through int64 gives). NaN and ±Infinity become 0 for wrapping
// dtypes. int64 and uint64 do not wrap: NaN, ±Infinity and values outside their exact range are refused (checkWide).
//
// ONNX element types raf-op has no dtype for (string, complex, float8, int4/uint4, int2/uint2, float4) are refused
// by the ONNX reader naming the value and its type.

import { OpError } from './errors.ts';

export const DTYPES = [
  'float16',
  'float32',
  'float64',
  'int64',
  'int32',
  'int8',
  'uint8',
  'bool',
  'bfloat16',
  'int16',
  'uint16',
  'uint32',
  'uint64',
] as const;
export type DType = (typeof DTYPES)[number];

export type FloatDType = 'float16' | 'bfloat16' | 'float32' | 'float64';
export type IntDType = 'int64' | 'int32' | 'int16' | 'int8' | 'uint64' | 'uint32' | 'uint16' | 'uint8';

/**
 * CPU storage per dtype. float16 and bfloat16 are stored widened in a Float32Array and rounded on write; int64 and
 * uint64 as exact integers in a Float64Array (see above).
 */
export type StorageOf = {
  float16: Float32Array;
  bfloat16: Float32Array;
  float32: Float32Array;
  float64: Float64Array;
  int64: Float64Array;
  int32: Int32Array;
  int16: Int16Array;
  int8: Int8Array;
  uint64: Float64Array;
  uint32: Uint32Array;
  uint16: Uint16Array;
  uint8: Uint8Array;
  bool: Uint8Array;
};
export type Storage = StorageOf[DType];

const STORAGE: { [D in DType]: { new (n: number): StorageOf[D]; from(a: ArrayLike<number>): StorageOf[D] } } = {
  float16: Float32Array,
  bfloat16: Float32Array,
  float32: Float32Array,
  float64: Float64Array,
  int64: Float64Array,
  int32: Int32Array,
  int16: Int16Array,
  int8: Int8Array,
  uint64: Float64Array,
  uint32: Uint32Array,
  uint16: Uint16Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

export function isDType(v: unknown): v is DType {
  return typeof v === 'string' && (DTYPES as readonly string[]).includes(v);
}

export function isFloat(d: DType): d is FloatDType {
  return d === 'float16' || d === 'float32' || d === 'float64' || d === 'bfloat16';
}

export function isInteger(d: DType): d is IntDType {
  return INTEGER_RANGE[d as IntDType] !== undefined;
}

/** Whether `d` is an unsigned integer dtype (uint8, uint16, uint32, uint64). */
export function isUnsigned(d: DType): boolean {
  return d === 'uint8' || d === 'uint16' || d === 'uint32' || d === 'uint64';
}

/** Whether `d` is stored as exact integers in a Float64Array (int64, uint64): results are checked, never wrapped. */
export function isWide(d: DType): d is 'int64' | 'uint64' {
  return d === 'int64' || d === 'uint64';
}

/**
 * The values each integer dtype holds in this runtime: the type's own range, except int64 and uint64, held exactly
 * within ±(2^53 - 1) (their storage; see above).
 */
export const INTEGER_RANGE: Readonly<Record<IntDType, readonly [number, number]>> = {
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int16: [-(2 ** 15), 2 ** 15 - 1],
  int8: [-128, 127],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  uint32: [0, 2 ** 32 - 1],
  uint16: [0, 2 ** 16 - 1],
  uint8: [0, 255],
};

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

/**
 * Checks uint64 values (already truncated) are integers storage holds exactly: 0 to 2^53 - 1. A negative value is what
 * wrapping modulo 2^64 would turn into one beyond 2^53, so it is refused too (naming `op`, `arg`, value and index).
 */
export function checkUint64(op: string, arg: string, values: ArrayLike<number>): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isSafeInteger(v) || v < 0) throw int64Error(op, arg, v, i, values.length, 'uint64');
  }
}

/** checkInt64 or checkUint64 for an int64 or uint64 `dtype`; nothing for the others (their stores wrap or round). */
export function checkWide(dtype: DType, op: string, arg: string, values: ArrayLike<number>): void {
  if (dtype === 'int64') checkInt64(op, arg, values);
  else if (dtype === 'uint64') checkUint64(op, arg, values);
}

function int64Error(
  op: string,
  arg: string,
  v: number | bigint,
  i: number,
  n: number,
  dtype: 'int64' | 'uint64' = 'int64',
): OpError {
  // Integral doubles print exactly (2^60 as 1152921504606846976, not 1152921504606847000).
  const text = typeof v === 'number' && Number.isInteger(v) ? BigInt(v).toString() : String(v);
  const finite = typeof v !== 'number' || Number.isFinite(v);
  const where = !finite
    ? 'not a finite integer'
    : dtype === 'uint64' && v < 0
      ? 'negative (uint64 would wrap it to a value beyond 2^53)'
      : 'beyond ±2^53';
  const range = dtype === 'uint64' ? `0 to ${INT64_EXACT}` : `±${INT64_EXACT}`;
  return new OpError(
    op,
    `${dtype} value ${text}${n > 1 ? ` at index ${i}` : ''} is ${where}: ` +
      `raf-op stores ${dtype} exactly only within ${range} (Number.MAX_SAFE_INTEGER) and refuses rather than rounds`,
    arg,
  );
}

/** int64 values from BigInts (a BigInt64Array or a list of bigint), refusing any beyond ±2^53 by op and argument. */
export function int64FromBigInts(
  op: string,
  arg: string,
  values: ArrayLike<bigint>,
  dtype: 'int64' | 'uint64' = 'int64',
): Float64Array {
  const out = new Float64Array(values.length);
  const limit = BigInt(INT64_EXACT);
  const low = dtype === 'uint64' ? 0n : -limit;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > limit || v < low) throw int64Error(op, arg, v, i, values.length, dtype);
    out[i] = Number(v);
  }
  return out;
}

/**
 * Truncates an int64 kernel result in place (a divide's quotient goes toward zero, as int32 storage does) and checks
 * it stays exact; what integer math overflowing 2^53 would round is refused by op, never kept rounded.
 */
export function finishInt64(op: string, arg: string, a: Float64Array, dtype: 'int64' | 'uint64' = 'int64'): void {
  const low = dtype === 'uint64' ? 0 : -INT64_EXACT;
  for (let i = 0; i < a.length; i++) {
    const v = Math.trunc(a[i]!);
    if (!Number.isSafeInteger(v) || v < low) throw int64Error(op, arg, a[i]!, i, a.length, dtype);
    // An integer has no negative zero (trunc(-0.5) and -4 % 2 give -0 in float64).
    a[i] = v === 0 ? 0 : v;
  }
}

/** Rounds a bfloat16 kernel result (a Float32Array) in place, as `finish` does float16's. */
export function finishBFloat16(a: Float32Array): void {
  for (let i = 0; i < a.length; i++) a[i] = roundToBFloat16(a[i]!);
}

/**
 * What every CPU result of `dtype` goes through once its kernel has written it: int64/uint64 truncated and checked
 * (finishInt64), bfloat16 rounded. float16 is left to the kernels (`finish` in dialects/cpu/support.ts), as before.
 */
export function finishStorage(dtype: DType, op: string, arg: string, a: Storage): void {
  if (dtype === 'int64' || dtype === 'uint64') finishInt64(op, arg, a as Float64Array, dtype);
  else if (dtype === 'bfloat16') finishBFloat16(a as Float32Array);
  else if (dtype === 'bool') finishBool(a as Uint8Array);
}

/**
 * bool results hold 0 or 1: a kernel's arithmetic on bools (add's 1 + 1) becomes true, so `add` of bools is a logical
 * or, as NumPy's.
 */
function finishBool(a: Uint8Array): void {
  for (let i = 0; i < a.length; i++) if (a[i]! > 1) a[i] = 1;
}

/** Whether `a` is an array of the kind `dtype`'s tensors are stored in. */
export function isStorageOf<D extends DType>(dtype: D, a: unknown): a is StorageOf[D] {
  return a instanceof STORAGE[dtype];
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
  checkWide(dtype, op, arg, out);
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

const bf16Scratch = new Float32Array(1);
const bf16Bits = new Uint32Array(bf16Scratch.buffer);

/**
 * Rounds a number to the nearest bfloat16 value, kept as a JS number: first to float32 (Math.fround), then
 * round-half-to-even on the top 16 bits of the float32, as ONNX's Cast (and PyTorch, TensorFlow) do. NaN stays NaN
 * (quiet), ±Infinity stays; a value rounding past the largest finite bfloat16 becomes ±Infinity.
 */
export function roundToBFloat16(v: number): number {
  if (Number.isNaN(v)) return NaN;
  bf16Scratch[0] = v;
  const bits = bf16Bits[0]!;
  // Round half to even on the low 16 bits; a carry into the exponent is the right next value (or Infinity).
  const rounded = (bits + 0x7fff + ((bits >>> 16) & 1)) & 0xffff0000;
  bf16Bits[0] = rounded >>> 0;
  return bf16Scratch[0]!;
}

/** The bfloat16 bits of `v` rounded as roundToBFloat16; NaN is 0x7fc0. */
export function bfloat16Bits(v: number): number {
  if (Number.isNaN(v)) return 0x7fc0;
  bf16Scratch[0] = roundToBFloat16(v);
  return bf16Bits[0]! >>> 16;
}

/** The number a bfloat16 bit pattern holds (exact: the top half of a float32). */
export function bfloat16FromBits(h: number): number {
  bf16Bits[0] = (h & 0xffff) << 16;
  return bf16Scratch[0]!;
}

export function castScalar(dtype: DType, v: number): number {
  switch (dtype) {
    case 'float16':
      return roundToFloat16(v);
    case 'bfloat16':
      return roundToBFloat16(v);
    case 'int32':
      return Math.trunc(v) | 0;
    case 'int64':
    case 'uint64':
      // Refused by checkInt64/checkUint64 when out of range; the callers that write int64/uint64 storage run it.
      return Math.trunc(v);
    case 'int16':
      return ((Math.trunc(v) | 0) << 16) >> 16;
    case 'int8':
      return ((Math.trunc(v) | 0) << 24) >> 24;
    case 'uint32':
      return (Math.trunc(v) | 0) >>> 0;
    case 'uint16':
      return (Math.trunc(v) | 0) & 0xffff;
    case 'uint8':
      return (Math.trunc(v) | 0) & 0xff;
    case 'bool':
      // Nonzero is true, NaN included (NumPy's astype(bool), C's conversion, ONNX's Cast).
      return v !== 0 ? 1 : 0;
    default:
      return v;
  }
}
