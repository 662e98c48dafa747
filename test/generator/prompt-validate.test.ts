// Prompts validate each answer as it is given, against the answers so far: a problem that needs several answers
// (a check naming an arg that does not exist, a mapping attr that is no arg) is asked again at the question that
// completes it, with the same file:line:col error the end's validation gives, and nothing answered before is lost.

import { describe, expect, it } from 'vitest';
import type { Asker } from '../../generators/src/scaffold/ask.ts';
import { askAll } from '../../generators/src/scaffold/ask.ts';
import { answersSoFarProblem, scaffoldContext } from '../../generators/src/scaffold/scaffold.ts';
import { REPO } from './robust-repo.ts';

const ctx = scaffoldContext(REPO);

/** Answers every question from flags except those scripted here, which it answers in turn until one validates. */
function scripted(script: Record<string, string[]>) {
  const refused: { question: string; answer: string; problem: string }[] = [];
  const asker: Asker = async (q, dflt, _choices, validate) => {
    for (const answer of script[q.name] ?? [dflt]) {
      const ok = await validate(answer);
      if (ok === true) return answer;
      refused.push({ question: q.name, answer, problem: ok });
    }
    throw new Error(`no answer to ${q.name} validated`);
  };
  return { asker, refused };
}

const FLAGS = {
  NAME: 'my_cross',
  compute: '',
  schema: '',
  category: 'nn',
  doc: 'Mine.',
  out: 'same(x)',
  grad: 'none',
  fusion: 'opaque',
  cast: 'never',
  relay: 'none',
  dialects: 'cpu=10',
  shapes: '[[3, 4]]',
  grid: '',
  domain: '[-2, 2]',
};

describe('prompts check each answer against the answers so far', () => {
  it('asks again at args when a check names an arg that does not exist, then at onnx for an attr that is no arg', async () => {
    const { asker, refused } = scripted({
      args: ['x: Tensor, axis: int = -1 check axis(z)', 'x: Tensor, axis: int = -1 check axis(x)'],
      onnx: ['Softmax opset=13 attr=axiz', 'Softmax opset=13 axis=axis'],
    });
    const answers = await askAll(
      ctx,
      { flags: FLAGS, yes: false, checkSoFar: (d, answered) => answersSoFarProblem(REPO, ctx, d, answered) },
      asker,
    );
    expect(refused.map((r) => r.question)).toEqual(['args', 'onnx']);
    expect(refused[0]!.problem).toMatch(/^specs\/nn\/my_cross\.yaml:\d+:\d+: error: .*\bz\b/);
    expect(refused[1]!.problem).toMatch(/^specs\/nn\/my_cross\.yaml:\d+:\d+: error: .*axiz/);
    // The answers after each refusal are the corrected ones; every other answer was kept.
    expect(answers.args.map((a) => `${a.name}: ${a.type} ${a.check ?? ''}`.trim())).toEqual([
      'x: Tensor',
      'axis: int axis(x)',
    ]);
    expect(answers.onnx).toMatchObject({ op: 'Softmax' });
    expect(answers.doc).toBe('Mine.');
  });

  it('does not blame an answer for a field whose questions are not all answered yet', async () => {
    const draft = { op: 'my_cross', compute: null, schema: null, category: 'nn' };
    // Only the name and category so far: the defaults of later questions validate, so nothing is reported.
    expect(
      await answersSoFarProblem(REPO, ctx, draft, new Set(['op', 'compute', 'schema', 'category'])),
    ).toBeUndefined();
  });
});
