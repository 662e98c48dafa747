// float16 rounding from float64 is one rounding (round-half-to-even), checked against a brute-force nearest search
// over every finite float16 value, on the neighbourhoods of ties where a double rounding goes wrong.
import { describe, expect, it } from 'vitest';

import { float16Bits, float16FromBits, roundToFloat16 } from '../../runtime/src/dtype.ts';

/** Every finite non-negative float16 value, ascending, with its bit pattern (0x0000..0x7bff). */
const VALUES = Array.from({ length: 0x7c00 }, (_, h) => float16FromBits(h));

/** The reference: the nearest float16 by exact comparison of distances (Sterbenz: neighbours' differences are exact). */
function nearest(x: number): number {
  const a = Math.abs(x);
  const sign = x < 0 ? -1 : 1;
  let lo = 0;
  let hi = VALUES.length - 1;
  if (a >= 65520) return sign * Infinity;
  if (a >= VALUES[hi]!) return sign * VALUES[hi]!;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (VALUES[mid]! <= a) lo = mid;
    else hi = mid;
  }
  const dl = a - VALUES[lo]!;
  const dh = VALUES[hi]! - a;
  const pick = dl < dh ? lo : dh < dl ? hi : lo % 2 === 0 ? lo : hi;
  const r = VALUES[pick]!;
  return r === 0 ? (x < 0 ? -0 : 0) : sign * r;
}

const view = new DataView(new ArrayBuffer(8));
/** The float64 `k` units in the last place away from x (x > 0). */
function ulpStep(x: number, k: number): number {
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(k));
  return view.getFloat64(0);
}

describe('roundToFloat16', () => {
  it('rounds 1.0014648437499996 once, to 1.0009765625', () => {
    expect(roundToFloat16(1.0014648437499996)).toBe(1.0009765625);
    expect(roundToFloat16(1.00146484375)).toBe(1.001953125); // the exact tie goes to the even mantissa
  });

  it('matches the nearest float16 within 4 ulp of every tie in sampled binades, subnormals included', () => {
    let checked = 0;
    const mismatches: string[] = [];
    for (let h = 0; h < VALUES.length - 1; h += h < 2048 ? 7 : 37) {
      const tie = (VALUES[h]! + VALUES[h + 1]!) / 2; // exact: a midpoint of two float16s is a float64
      for (let k = -4; k <= 4; k++) {
        for (const x of [ulpStep(tie, k), -ulpStep(tie, k)]) {
          checked++;
          const got = roundToFloat16(x);
          if (!Object.is(got, nearest(x))) mismatches.push(`${x}: got ${got}, nearest ${nearest(x)}`);
        }
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(checked).toBeGreaterThan(10000);
  });

  it('handles the overflow and underflow ties and keeps the sign of zero', () => {
    expect(roundToFloat16(65519.99999999999)).toBe(65504);
    expect(roundToFloat16(65520)).toBe(Infinity);
    expect(roundToFloat16(-65520)).toBe(-Infinity);
    expect(roundToFloat16(2 ** -25)).toBe(0);
    expect(roundToFloat16(ulpStep(2 ** -25, 1))).toBe(2 ** -24);
    expect(Object.is(roundToFloat16(-(2 ** -26)), -0)).toBe(true);
    expect(roundToFloat16(3 * 2 ** -25)).toBe(2 ** -23); // the tie between 1 and 2 subnormal quanta goes to 2
  });

  it('gives bits that decode to the rounded value', () => {
    for (const x of [1.0014648437499996, 0.1, -2.5e-6, 60000.5, 1 / 3]) {
      expect(float16FromBits(float16Bits(x))).toBe(roundToFloat16(x));
    }
  });
});
