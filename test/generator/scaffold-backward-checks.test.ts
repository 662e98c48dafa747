// A backward op scaffolded with its forward (`--grad "x: rms_norm_dx(x, dy, axis)"`) gets the forward's checks on
// the attrs it passes, where the backward op can state them: `axis(x)` when it takes x, `axis(y)` when it takes the
// output of a forward shaped like x, value checks (positive) as they are; a check naming a tensor it lacks is left out.

import { describe, expect, it } from 'vitest';
import { missingBackwardOps } from '../../generators/src/scaffold/backward.ts';
import type { ScaffoldAnswers } from '../../generators/src/scaffold/answers.ts';

function scaffold(out: string, formula: string): ScaffoldAnswers {
  const answers = {
    op: 'my_norm',
    category: 'nn',
    schema: null,
    out,
    args: [
      { name: 'x', type: 'Tensor' },
      { name: 'axis', type: 'int', default: { value: -1 }, check: 'axis(x)' },
      { name: 'eps', type: 'float', default: { value: 1e-5 }, check: 'positive' },
    ],
    grad: { kind: 'formulas', saves: ['x', 'y'], formulas: { x: formula } },
    tests: { domain: [-2, 2] },
  } as unknown as ScaffoldAnswers;
  const [dx] = missingBackwardOps(answers, { model: { ops: [] } } as never);
  return dx!;
}

describe("a scaffolded backward op gets its forward's arg checks", () => {
  it('copies axis(x) and positive when the backward op takes x (rms_norm_dx)', () => {
    expect(scaffold('same(x)', 'my_norm_dx(x, dy, axis, eps)').args).toEqual([
      { name: 'x', type: 'Tensor' },
      { name: 'dy', type: 'Tensor' },
      { name: 'axis', type: 'int', default: { value: -1 }, check: 'axis(x)' },
      { name: 'eps', type: 'float', default: { value: 1e-5 }, check: 'positive' },
    ]);
  });

  it('states axis(x) on y when the forward is shaped like x and the backward takes y, under a keyword name too', () => {
    expect(scaffold('same(x)', 'my_norm_dx(y, dy, dim=axis)').args).toEqual([
      { name: 'y', type: 'Tensor' },
      { name: 'dy', type: 'Tensor' },
      { name: 'dim', type: 'int', default: { value: -1 }, check: 'axis(y)' },
    ]);
  });

  it('leaves out a check on a tensor the backward op neither takes nor shares a shape with', () => {
    expect(scaffold('custom(my_rule)', 'my_norm_dx(dy, axis)').args).toEqual([
      { name: 'dy', type: 'Tensor' },
      { name: 'axis', type: 'int', default: { value: -1 } },
    ]);
  });
});
