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
