// The dtype vocabulary of the runtime: names, storage arrays, and the rules that relate them.

export const DTYPES = ['float16', 'float32', 'float64', 'int32', 'bool'] as const;
export type DType = (typeof DTYPES)[number];

export type FloatDType = 'float16' | 'float32' | 'float64';

/** CPU storage per dtype. float16 is stored widened in a Float32Array and rounded on write. */
export type StorageOf = {
  float16: Float32Array;
  float32: Float32Array;
  float64: Float64Array;
  int32: Int32Array;
  bool: Uint8Array;
};
export type Storage = StorageOf[DType];

const STORAGE: { [D in DType]: { new (n: number): StorageOf[D]; from(a: ArrayLike<number>): StorageOf[D] } } = {
  float16: Float32Array,
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  bool: Uint8Array,
};

export function isDType(v: unknown): v is DType {
  return typeof v === 'string' && (DTYPES as readonly string[]).includes(v);
}

export function isFloat(d: DType): d is FloatDType {
  return d === 'float16' || d === 'float32' || d === 'float64';
}

export function allocStorage<D extends DType>(dtype: D, size: number): StorageOf[D] {
  return new STORAGE[dtype](size) as StorageOf[D];
}

/** Copies values into fresh storage of `dtype`, applying that dtype's rounding. */
export function toStorage<D extends DType>(dtype: D, values: ArrayLike<number>): StorageOf[D] {
  const out = allocStorage(dtype, values.length);
  for (let i = 0; i < values.length; i++) out[i] = castScalar(dtype, values[i]!);
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
    case 'bool':
      return v ? 1 : 0;
    default:
      return v;
  }
}
