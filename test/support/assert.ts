// Numeric comparison with a readable failure: where the worst element is and by how much.

export interface Tolerance {
  atol: number;
  rtol: number;
}

export function tolerance(dtype: string): Tolerance {
  return dtype === 'float64'
    ? { atol: 1e-9, rtol: 1e-7 }
    : dtype === 'float16'
      ? { atol: 1e-2, rtol: 1e-2 }
      : { atol: 1e-4, rtol: 1e-4 };
}

/**
 * Throws when any element differs beyond atol + rtol * |expected|; NaN must match NaN, and an infinity the same
 * infinity (|inf - inf| is NaN, which no tolerance admits). Whether a NaN or infinite expected value may be compared
 * at all is the caller's to say (the op suite's requireFinite, by the spec's `tests.non_finite`).
 */
export function assertAllClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tol: Tolerance,
  what = 'values',
): void {
  if (actual.length !== expected.length) {
    throw new Error(`${what}: ${actual.length} elements, expected ${expected.length}`);
  }
  let worst = -1;
  let worstErr = 0;
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (Number.isNaN(e) && Number.isNaN(a)) continue;
    if (a === e) continue; // equal infinities of the same sign
    const err = Math.abs(a - e) - tol.rtol * Math.abs(e);
    if (!(err <= tol.atol) && (worst < 0 || err > worstErr || Number.isNaN(err))) {
      worst = i;
      worstErr = err;
    }
  }
  if (worst >= 0) {
    throw new Error(
      `${what}: element ${worst} is ${actual[worst]}, expected ${expected[worst]} ` +
        `(|diff| ${Math.abs(actual[worst]! - expected[worst]!)} > atol ${tol.atol} + rtol ${tol.rtol})`,
    );
  }
}
