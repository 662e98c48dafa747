// Comparisons with infinities: an infinity equals the same infinity (|inf - inf| is NaN, which no tolerance admits),
// never the other sign or a finite number; gradcheck skips elements whose numeric gradient is undefined and counts
// them. Shown on cumsum with infinite inputs against onnxruntime's CumSum (the harness's own oracle).

import { describe, expect, it } from 'vitest';
import { assertAllClose, tolerance } from './assert.ts';
import { onnxExpected } from './op-suite.ts';
import { call } from '../../runtime/src/dispatch.ts';
import { gradcheck, tensor, type Tensor } from '../../runtime/src/index.ts';

describe('assertAllClose with infinities', () => {
  const tol = tolerance('float64');

  it('treats equal infinities of the same sign as equal', () => {
    expect(() => assertAllClose([-Infinity, 1, Infinity], [-Infinity, 1, Infinity], tol)).not.toThrow();
  });

  it('refuses an infinity of the other sign, a finite value for an infinity, and an infinity for a finite value', () => {
    expect(() => assertAllClose([Infinity], [-Infinity], tol, 'v')).toThrow(
      'v: element 0 is Infinity, expected -Infinity',
    );
    expect(() => assertAllClose([1e308], [Infinity], tol, 'v')).toThrow('v: element 0 is 1e+308, expected Infinity');
    expect(() => assertAllClose([0, -Infinity], [0, -1], tol, 'v')).toThrow('v: element 1 is -Infinity, expected -1');
  });

  it('compares cumsum over infinite inputs with onnxruntime CumSum, exclusive and not', async () => {
    const x = tensor([1, Infinity, 2, -3], { dtype: 'float64', shape: [4] });
    const oracle = {
      kind: 'onnx' as const,
      op: 'CumSum',
      opset: 14,
      inputs: ['x', 'axis'],
      attrs: { exclusive: 'exclusive' },
    };
    for (const exclusive of [false, true]) {
      const got = Array.from((call('cumsum', [], { x, axis: 0, exclusive }) as Tensor).dataSync());
      const expected = await onnxExpected(oracle, { x }, { axis: 0, dtype: null, exclusive }, [], {
        axis: 0,
        exclusive,
      });
      expect(got).toEqual(exclusive ? [0, 1, Infinity, Infinity] : [1, Infinity, Infinity, Infinity]);
      expect(() => assertAllClose(got, expected.values[0]!, tol, 'cumsum vs CumSum')).not.toThrow();
    }
  });
});

describe('gradcheck where the numeric gradient is undefined', () => {
  const sqrt = (x: Tensor) => call('sqrt', [x]) as Tensor;

  it('skips the elements whose central difference is NaN or infinite, checks the rest, and counts both', () => {
    // At 0, sqrt(-eps) is NaN: the numeric gradient is undefined there (the analytic one is inf).
    const result = gradcheck(sqrt, [tensor([0, 1, 4, 0], { dtype: 'float64', shape: [4] })]);
    expect(result).toEqual([]);
    expect(result.skipped).toBe(2);
    expect(result.checked).toBe(2);
  });

  it('still reports a mismatch where the numeric gradient is defined', () => {
    // sqrt(x·x) = |x|: at 0 the numeric gradient is 0 (defined) while the chain rule gives inf · 0 = NaN.
    const result = gradcheck(
      (x: Tensor) => sqrt(call('multiply', [x, x]) as Tensor),
      [tensor([-2, 0, 3], { dtype: 'float64', shape: [3] })],
    );
    // |x| has a kink at 0 (numeric 0, analytic NaN: a failure there), and is checked at -2 and 3.
    expect(result.checked).toBe(3);
    expect(result.map((f) => f.index)).toEqual([1]);
  });
});
