// Scalar math helpers imported by generated CPU kernels: the functions JavaScript's Math lacks or computes unstably.

const TWO_OVER_SQRT_PI = 1.1283791670955126;
const ONE_OVER_SQRT_PI = 0.5641895835477563;
/** Below this |x| the Maclaurin-type series converges quickly; above it the continued fraction does. */
const SERIES_LIMIT = 2.5;
/** Beyond this erfc(x) < 1e-300, so erf is exactly ±1 in float64 and the continued fraction can be skipped. */
const SATURATION = 27;
/** Depth at which the backward-evaluated continued fraction reaches float64 precision for x >= SERIES_LIMIT. */
const CONTINUED_FRACTION_DEPTH = 40;

/**
 * erf(|x|) for |x| < SERIES_LIMIT from erf(x) = 2/sqrt(pi) * exp(-x²) * Σ 2ⁿ x²ⁿ⁺¹ / (1·3·…·(2n+1)).
 * Every term is positive, so unlike the alternating Taylor series there is no cancellation; the sum stops once
 * a term no longer changes it.
 */
function erfSeries(absX: number): number {
  const x2 = absX * absX;
  let term = absX;
  let sum = absX;
  for (let n = 0; n < 60; n++) {
    term *= (2 * x2) / (2 * n + 3);
    const next = sum + term;
    if (next === sum) break;
    sum = next;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/**
 * erfc(x) for x >= SERIES_LIMIT from the Laplace continued fraction
 * erfc(x) = exp(-x²)/sqrt(pi) · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), evaluated from the tail inward.
 * Working on erfc keeps full relative accuracy in the tail, which log-probability style kernels need.
 */
function erfcContinuedFraction(x: number): number {
  if (x > SATURATION) return 0;
  let denominator = x;
  for (let k = CONTINUED_FRACTION_DEPTH; k >= 1; k--) denominator = x + k / 2 / denominator;
  return (ONE_OVER_SQRT_PI * Math.exp(-x * x)) / denominator;
}

/** Gauss error function; relative error ≈ 1e-15 over the whole line (float64 gradchecks need more than 1e-7). */
export function erf(x: number): number {
  const absX = Math.abs(x);
  if (absX < SERIES_LIMIT) return x < 0 ? -erfSeries(absX) : erfSeries(absX);
  if (Number.isNaN(x)) return x;
  const magnitude = 1 - erfcContinuedFraction(absX);
  return x < 0 ? -magnitude : magnitude;
}

/** Complementary error function 1 - erf(x), accurate in the right tail where 1 - erf(x) would round to 0. */
export function erfc(x: number): number {
  if (x >= SERIES_LIMIT) return erfcContinuedFraction(x);
  if (x <= -SERIES_LIMIT) return 2 - erfcContinuedFraction(-x);
  return 1 - erf(x);
}

/** Logistic function; branches so that exp never overflows to give Infinity/Infinity. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** log(1 + exp(x)) without overflow for large x or loss of precision for very negative x. */
export function softplus(x: number): number {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

/** Round to nearest with ties to even, as NumPy, PyTorch, ONNX and WGSL do (Math.round ties toward +∞). */
export function roundHalfEven(x: number): number {
  const below = Math.floor(x);
  const fraction = x - below;
  let rounded: number;
  if (fraction < 0.5) rounded = below;
  else if (fraction > 0.5) rounded = below + 1;
  else rounded = below % 2 === 0 ? below : below + 1;
  // Keep the sign of zero that Math.round would give (round(-0.3) is -0).
  return rounded === 0 ? 0 * x : rounded;
}

/** Remainder of a / b floored, so it takes b's sign (Python's %, NumPy's mod): C's fmod, moved by b when signs differ. */
export function floorMod(a: number, b: number): number {
  const r = a % b;
  // A zero remainder takes b's sign too, as NumPy's gives (mod(4.0, -2.0) is -0.0).
  if (r === 0) return b < 0 ? -0 : 0;
  return r < 0 !== b < 0 ? r + b : r;
}

const TWO32 = 4294967296;

/**
 * A bitwise operation on integers held as numbers, exact over ±2^53 (int64 storage): values beyond int32 are split
 * into a signed high word and an unsigned low word, which two's complement lets each combine on its own.
 */
function bitwise(a: number, b: number, op: (x: number, y: number) => number): number {
  if (a === (a | 0) && b === (b | 0)) return op(a, b);
  const [ah, bh] = [Math.floor(a / TWO32), Math.floor(b / TWO32)];
  const [al, bl] = [a - ah * TWO32, b - bh * TWO32];
  return op(ah, bh) * TWO32 + (op(al | 0, bl | 0) >>> 0);
}

const and = (x: number, y: number) => x & y;
const or = (x: number, y: number) => x | y;
const xor = (x: number, y: number) => x ^ y;

/** Bitwise and of two integers, exact over ±2^53. */
export function bitAnd(a: number, b: number): number {
  return bitwise(a, b, and);
}

/** Bitwise or of two integers, exact over ±2^53. */
export function bitOr(a: number, b: number): number {
  return bitwise(a, b, or);
}

/** Bitwise exclusive or of two integers, exact over ±2^53. */
export function bitXor(a: number, b: number): number {
  return bitwise(a, b, xor);
}

/** Bitwise complement of an integer in two's complement, -a - 1 (a store into uint8 wraps it to 255 - a). */
export function bitNot(a: number): number {
  return -a - 1;
}

/** a shifted left by b bits: a · 2^b, exact (the store wraps it to the dtype's width; int64 beyond 2^53 is refused). */
export function shiftLeft(a: number, b: number): number {
  return a * 2 ** b;
}

/** a shifted right by b bits: floor(a / 2^b), exact (an arithmetic shift for a negative a). */
export function shiftRight(a: number, b: number): number {
  return Math.floor(a / 2 ** b);
}

/**
 * a · b in a kernel whose result is int32 (or uint32: the same bits): the float64 product where it is exact (|a · b| <= 2^53), which the int32
 * store wraps correctly; beyond, Math.imul's product modulo 2^32, which the rounded float64 product would not give.
 */
export function mulInt32(a: number, b: number): number {
  const p = a * b;
  return p <= Number.MAX_SAFE_INTEGER && p >= -Number.MAX_SAFE_INTEGER ? p : Math.imul(a, b);
}
