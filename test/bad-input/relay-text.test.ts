// Malformed Relay text: each refused by FromRelay at the line:column of the fault, saying what is wrong.

import { describe, expect, it } from 'vitest';
import { execute, fromRelay, tensor } from '../../runtime/src/index.ts';

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    const message = (e as Error).message;
    expect(message).not.toMatch(/^\s+at /m);
    return message;
  }
  throw new Error('expected a refusal');
}

describe('parameters', () => {
  it('a parameter declared twice is reported as duplicated, at the second, naming the first', () => {
    const text = 'fn (%x: Tensor[(2), float32],\n    %x: Tensor[(2), float32]) {\n  add(%x, %x)\n}';
    expect(refusal(() => fromRelay(text))).toBe(
      '2:5: parameter %x is declared twice (first at 1:5); give each parameter its own name',
    );
  });

  it('two distinct parameters import and run', () => {
    const g = fromRelay('fn (%x: Tensor[(2), float32], %y: Tensor[(2), float32]) {\n  add(%x, %y)\n}');
    const [z] = execute(g, [
      tensor([1, 2], { dtype: 'float32', shape: [2] }),
      tensor([10, 20], { dtype: 'float32', shape: [2] }),
    ]);
    expect(Array.from(z!.dataSync())).toEqual([11, 22]);
  });

  it('a variable bound nowhere is reported as unbound, at its use', () => {
    expect(refusal(() => fromRelay('fn (%x: Tensor[(2), float32]) {\n  add(%x, %y)\n}'))).toBe(
      'FromRelay 2:11: unbound variable %y',
    );
  });
});
