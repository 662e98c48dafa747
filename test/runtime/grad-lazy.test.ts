// Backward computes gradients only for the inputs that need one: matmul with a constant left operand (a layer's
// input) runs no matmul_nt for it, and the gradients it does compute match float64 references.

import { describe, expect, it } from 'vitest';
import { grad, ops, tensor } from '../../runtime/src/index.ts';
import { setInvokeHook } from '../../runtime/src/dispatch.ts';

function opsCalled(fn: () => unknown): string[] {
  const names: string[] = [];
  const prev = setInvokeHook((op) => {
    names.push(op.name);
    return null;
  });
  try {
    fn();
  } finally {
    setInvokeHook(prev);
  }
  return names;
}

describe('lazy input gradients', () => {
  const x = tensor(
    [
      [1, 2, 3],
      [4, 5, 6],
    ],
    { dtype: 'float64' },
  );
  const w = tensor(
    [
      [0.5, -1],
      [2, 0.25],
      [-3, 1],
    ],
    { dtype: 'float64' },
  );

  it('d/dw sum(x·w) is xᵀ·1, with no gradient computed for the constant x', () => {
    let gw: unknown;
    const called = opsCalled(() => {
      gw = grad((b: typeof w) => ops.sum(ops.matmul(x, b)))(w);
    });
    expect(called).toContain('matmul_tn');
    expect(called).not.toContain('matmul_nt');
    // Column sums of x, repeated for each output column.
    const g = (Array.isArray(gw) ? gw[0] : gw) as { dataSync(): ArrayLike<number> };
    expect(Array.from(g.dataSync())).toEqual([5, 5, 7, 7, 9, 9]);
  });

  it('with both inputs wanted, both gradients come back right', () => {
    const [gx, gw] = grad((a: typeof x, b: typeof w) => ops.sum(ops.matmul(a, b)))(x, w) as unknown as [
      { dataSync(): ArrayLike<number> },
      { dataSync(): ArrayLike<number> },
    ];
    // d/dx = 1·wᵀ: each row holds w's row sums.
    expect(Array.from(gx.dataSync())).toEqual([-0.5, 2.25, -2, -0.5, 2.25, -2]);
    expect(Array.from(gw.dataSync())).toEqual([5, 5, 7, 7, 9, 9]);
  });
});
