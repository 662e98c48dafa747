// Runtime refusals: each rule's bad input is refused with an OpError whose message names the op and the argument.

import { describe, expect, it } from 'vitest';
import { grad, ops, tensor } from '../../runtime/src/index.ts';
import { OpError } from '../../runtime/src/errors.ts';

const scalar = (v: number) => tensor([v], { dtype: 'float32', shape: [] });

function refusal(f: () => unknown): OpError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OpError);
    return e as OpError;
  }
  throw new Error('expected a refusal');
}

describe('shape-deciding scalars must be finite', () => {
  it.each([
    ['start', [NaN, 1, 1], 'NaN'],
    ['limit', [0, NaN, 1], 'NaN'],
    ['limit', [0, Infinity, 1], 'Infinity'],
    ['delta', [0, 1, -Infinity], '-Infinity'],
  ] as const)('range refuses a non-finite %s', (arg, [s, l, d], shown) => {
    const e = refusal(() => ops.range(scalar(s), scalar(l), scalar(d)));
    expect(e.message).toBe(`raf.op.range (argument '${arg}'): must be a finite number, got ${shown}`);
  });
});

describe('autodiff entry points', () => {
  it('grad refuses an f that returns no Tensor', () => {
    const x = tensor([1, 2], { dtype: 'float32', shape: [2] });
    const e = refusal(() => grad(() => 3 as never)(x));
    expect(e.message).toBe("raf.op.grad (argument 'f'): f must return a Tensor or an array of Tensors, got number 3");
  });
});
