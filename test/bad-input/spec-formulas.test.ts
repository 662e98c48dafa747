// Formulas (grad:, tests.oracle) checked at gen against the schemas of the ops they call: literals and keyword args
// accepted, every mismatch refused at the formula's file:line:col with a hint, and schema changes that break a
// dependant (a backward op's callers, an op reusing a schema) refused where the dependant calls.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';
import { emitGrads } from '../../generators/src/emit/grad.ts';
import { evaluateFormula, parseFormula, FormulaError } from '../../generators/src/spec/formula.ts';
import { oracleSource } from '../../generators/src/spec/formula-types.ts';
import { emitFormulaReference, FORMULAS_REFERENCE } from '../../generators/src/emit/formula-docs.ts';
import { missingBackwardOps } from '../../generators/src/scaffold/backward.ts';
import type { ScaffoldAnswers } from '../../generators/src/scaffold/answers.ts';
import { call } from '../../runtime/src/dispatch.ts';
import { tensor, type Tensor } from '../../runtime/src/index.ts';
import { REPO, SPECS, spec, errorsWith, where, edit } from './spec-texts.ts';

function modelWith(changes: Record<string, string>) {
  const raws = Object.entries({ ...Object.fromEntries(SPECS), ...changes }).map(([f, t]) => loadSpecText(f, t).spec!);
  const { model, errors } = buildModel(raws);
  expect(errors.map(String)).toEqual([]);
  return model;
}

const CUMSUM = 'specs/tensor/cumsum.yaml';
const CUMSUM_DX = 'specs/tensor/cumsum_dx.yaml';
const CUMPROD = 'specs/tensor/cumprod.yaml';
const SOFTMAX = 'specs/nn/softmax.yaml';
const SOFTMAX_DX = 'specs/nn/softmax_dx.yaml';
const TOPK = 'specs/tensor/topk.yaml';
const DROPOUT = 'specs/nn/dropout.yaml';
const PAIR = 'specs/tensor/minmax_pair.yaml';

/** A two-output op of its own (the min and max of x along axis, keeping the axis), for tuple-gradient cases. */
const pair = (grad: string) => `op: minmax_pair
doc: The smallest and the largest element of x along axis.
args:
  x: { type: Tensor }
  axis: { type: int, default: -1, check: axis(x) }
out: { tuple: custom(minmax_pair_rule), outputs: [lo, hi] }
grad:
  saves: [x, y]
  x: ${grad}
fusion: opaque
dialects: { cpu: 10 }
`;

describe('formula literals and keyword arguments', () => {
  it('the repository specs (cumsum and embedding call by keyword, layout_transform swaps by keyword) build clean', () => {
    expect(spec(CUMSUM)).toContain('cumsum_dx(x, dy, axis=axis, exclusive=exclusive)');
    expect(errorsWith({})).toEqual([]);
  });

  it('accepts true, false, null, numbers, lists and keyword args where the callee takes them', () => {
    const grads = [
      'cumsum_dx(x, dy, null, false)',
      'cumsum_dx(x, dy, exclusive=true)',
      'cumsum_dx(x, dy, axis, exclusive=exclusive) * 2.5',
      'cumsum_dx(dy=dy, x=x)',
    ];
    for (const g of grads)
      expect(errorsWith({ [CUMSUM]: edit(CUMSUM, 'cumsum_dx(x, dy, axis=axis, exclusive=exclusive)', g) })).toEqual([]);
    const oracle = (o: string) => errorsWith({ [SOFTMAX]: `${spec(SOFTMAX)}  oracle: "${o}"\n` });
    expect(spec(SOFTMAX)).toMatch(/\ntests:\n/);
    expect(oracle('divide(exp(x), sum(exp(x), [0], keepdims=true))')).toEqual([]);
    expect(oracle('divide(exp(x), sum(exp(x), axis=null, keepdims=true))')).toEqual([]);
  });

  it('names a parse error of the new syntax at its column', () => {
    const bad = (g: string, needle: string, message: string) => {
      const text = edit(CUMSUM, 'cumsum_dx(x, dy, axis=axis, exclusive=exclusive)', g);
      expect(errorsWith({ [CUMSUM]: text })).toEqual([
        `${where(CUMSUM, text, needle)}: error: grad formula for 'x': ${message}`,
      ]);
    };
    bad(
      'cumsum_dx(x, dy, axis=axis, exclusive)',
      'exclusive)',
      'a positional argument follows a keyword argument; name it too (NAME=...)',
    );
    bad('cumsum_dx(x, dy, axis=axis, axis=null)', 'axis=null', "keyword argument 'axis' is given twice");
    bad('true(x)', 'true', "'true' is a literal, not an op");
  });
});

describe('formulas type-checked against the called op', () => {
  const cumsumGrad = (g: string) => edit(CUMSUM, 'cumsum_dx(x, dy, axis=axis, exclusive=exclusive)', g);

  it('refuses 0 where a bool goes (it failed only at run time)', () => {
    const text = cumsumGrad('cumsum_dx(x, dy, axis=axis, exclusive=0)');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, '0)')}: error: formula for 'x' passes 0 (a number, int) as 'exclusive' of cumsum_dx, whose 'exclusive' is bool\n  hint: write true or false`,
    ]);
  });

  it('refuses a float where an int goes, a keyword the callee lacks, and one given twice', () => {
    let text = cumsumGrad('cumsum_dx(x, dy, 0.5)');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, '0.5')}: error: formula for 'x' passes 0.5 (a number, float) as argument 3 of cumsum_dx, whose 'axis' is int?\n  hint: cumsum_dx: cumsum_dx(x, dy, axis, exclusive) in specs/tensor/cumsum_dx.yaml`,
    ]);
    text = cumsumGrad('cumsum_dx(x, dy, axis=axis, exclusiv=exclusive)');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, 'exclusiv=')}: error: formula for 'x': cumsum_dx has no arg 'exclusiv'\n  hint: did you mean 'exclusive'?`,
    ]);
    text = cumsumGrad('cumsum_dx(x, dy, axis, axis=axis)');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, 'axis=')}: error: formula for 'x': cumsum_dx's 'axis' is given twice (argument 3 is 'axis' too)\n  hint: give it once`,
    ]);
  });

  it('refuses a float literal where a backward op (grad: none) takes a tensor shaped like another', () => {
    expect(spec(SOFTMAX_DX)).toMatch(/grad: none/);
    const text = edit(SOFTMAX, 'softmax_dx(y, dy, axis)', 'softmax_dx(y, 0.5, axis)');
    expect(errorsWith({ [SOFTMAX]: text })).toEqual([
      `${where(SOFTMAX, text, '0.5')}: error: formula for 'x' passes 0.5 (a number, float) as argument 2 of softmax_dx, whose 'dy' is a tensor shaped like 'y' (check like(y)); a number has no shape\n  hint: pass a tensor there (softmax_dx: softmax_dx(y, dy, axis) in specs/nn/softmax_dx.yaml)`,
    ]);
  });

  it('refuses a number where a tensor goes whose rank or shape another arg is checked against', () => {
    const text = edit(SOFTMAX, 'softmax_dx(y, dy, axis)', 'softmax_dx(2, dy, axis)');
    expect(errorsWith({ [SOFTMAX]: text })).toEqual([
      `${where(SOFTMAX, text, '2, dy')}: error: formula for 'x' passes 2 (a number, int) as argument 1 of softmax_dx, whose 'y' is a tensor that 'dy' is checked against (like(y)); a number has no axes\n  hint: pass a tensor there (softmax_dx: softmax_dx(y, dy, axis) in specs/nn/softmax_dx.yaml)`,
    ]);
  });

  it('refuses a gradient that gives a number or a bool', () => {
    const text = cumsumGrad('2 * 3');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, '2 * 3')}: error: formula for 'x' gives 2 * 3 (a number, int), where 'x' is a tensor\n  hint: a number becomes a tensor through an op, e.g. multiply(dy, 0) for zeros shaped like dy`,
    ]);
  });
});

describe('tuple outputs', () => {
  it('refuses an output named with a reserved word', () => {
    const text = edit(TOPK, 'outputs: [values, indices]', 'outputs: [values, default]');
    expect(errorsWith({ [TOPK]: text })).toEqual([
      `${where(TOPK, text, 'default]')}: error: output 'default' is a reserved word (in TypeScript or in formulas)\n  hint: rename it, e.g. 'default_value'`,
    ]);
  });

  it('refuses one oracle formula for a tuple of named outputs', () => {
    const text = edit(
      DROPOUT,
      'oracle: { y: "multiply(x, 1)", mask: "greater_equal(x, x)" }',
      'oracle: multiply(x, 1)',
    );
    expect(errorsWith({ [DROPOUT]: text })).toEqual([
      `${where(DROPOUT, text, 'multiply(x, 1)')}: error: one oracle formula for dropout's 2 outputs (y, mask)\n  hint: give one formula per output: oracle: { y: ..., mask: ... }`,
    ]);
  });

  it('refuses dy read as one tensor where it is a list', () => {
    const text = pair('dy * 2');
    expect(errorsWith({ [PAIR]: text })).toEqual([
      `${where(PAIR, text, 'dy * 2')}: error: formula for 'x' uses 'dy' (a list of 2 tensors, lo and hi: the gradients of minmax_pair's outputs) as one tensor (an operand of '*')\n  hint: select one output: dy[0] or dy.lo`,
    ]);
  });

  it('refuses a gradient that multiplies by the saved tuple y', () => {
    const text = pair('dy.lo * y');
    expect(errorsWith({ [PAIR]: text })).toEqual([
      `${where(PAIR, text, 'y\n')}: error: formula for 'x' uses 'y' (a list of 2 tensors, lo and hi: the outputs of minmax_pair) as one tensor (an operand of '*')\n  hint: select one output: y[0] or y.lo`,
    ]);
  });

  it('refuses a tuple op (topk) used as one tensor, and outputs that do not exist', () => {
    let text = pair('dy.lo * topk(x, 1)');
    expect(errorsWith({ [PAIR]: text })).toEqual([
      `${where(PAIR, text, 'topk')}: error: formula for 'x' uses topk(x, 1) (a list of 2 tensors, values and indices: the outputs of topk) as one tensor (an operand of '*')\n  hint: select one output: topk(x, 1)[0] or topk(x, 1).values`,
    ]);
    text = pair('dy.low + dy[2]');
    expect(errorsWith({ [PAIR]: text })).toEqual([
      `${where(PAIR, text, 'low')}: error: formula for 'x' selects dy.low, which is not an output (outputs: lo, hi)\n  hint: did you mean 'lo'?`,
      `${where(PAIR, text, '[2]')}: error: formula for 'x' selects dy[2], but dy has 2 outputs (lo, hi)\n  hint: use an index below 2`,
    ]);
  });

  it('accepts outputs selected by name or index, and renders them as indices', () => {
    const g = 'dy.lo * equal(x, y[0]) + dy[1] * equal(x, topk(x, 1, axis=axis).values)';
    expect(errorsWith({ [PAIR]: pair(g) })).toEqual([]);
    const model = modelWith({ [PAIR]: pair(g) });
    const file = emitGrads(model).find((f) => f.path.endsWith('/grad/minmax_pair.ts'))!;
    expect(file.content).toContain(
      'add(multiply(c.dy[0]!, equal(c.x, c.y[0]!)), multiply(c.dy[1]!, equal(c.x, topk(c.x, 1, c.axis)[0]!)))',
    );
  });

  it('renders keyword args by position, the args skipped between them at their defaults', () => {
    const model = modelWith({
      [CUMSUM]: edit(
        CUMSUM,
        'cumsum_dx(x, dy, axis=axis, exclusive=exclusive)',
        'cumsum_dx(dy=dy, x=x, exclusive=true)',
      ),
    });
    const file = emitGrads(model).find((f) => f.path.endsWith('/grad/cumsum.ts'))!;
    // cumsum_dx(x, dy, axis = null, exclusive = false): axis is skipped, so it takes its default.
    expect(file.content).toContain('x: cumsumDx(c.x, c.dy, null, true)');
  });
});

describe('a schema change that breaks a dependant', () => {
  it('refuses softmax_dx gaining a float before axis: softmax_dx(y, dy, axis) would feed axis into it', () => {
    const dx = edit(SOFTMAX_DX, '  axis: {', '  scale: { type: float, default: 1.0 }\n  axis: {');
    expect(errorsWith({ [SOFTMAX_DX]: dx })).toEqual([
      `${where(SOFTMAX, spec(SOFTMAX), 'axis)')}: error: formula for 'x' passes 'axis' as argument 3 of softmax_dx, which is its 'scale' (float); its 'axis' is argument 4\n  hint: softmax_dx(y, dy, scale, axis) in specs/nn/softmax_dx.yaml; if softmax_dx's args changed, pass by name: axis=axis; if 'scale' is meant, say so: scale=axis`,
    ]);
    // Also when the inserted arg is an int (the types agree, the names do not).
    const intDx = edit(SOFTMAX_DX, '  axis: {', '  groups: { type: int, default: 1 }\n  axis: {');
    expect(errorsWith({ [SOFTMAX_DX]: intDx })[0]).toMatch(
      /^specs\/nn\/softmax\.yaml:\d+:\d+: error: formula for 'x' passes 'axis' as argument 3 of softmax_dx, which is its 'groups' \(int\)/,
    );
    // A call by name is not shifted.
    expect(
      errorsWith({
        [SOFTMAX_DX]: dx,
        [SOFTMAX]: edit(SOFTMAX, 'softmax_dx(y, dy, axis)', 'softmax_dx(y, dy, axis=axis)'),
      }),
    ).toEqual([]);
  });

  it('refuses a backward op gaining a required arg, at every formula that calls it', () => {
    const dx = edit(CUMSUM_DX, '  axis: {', '  scale: { type: float }\n  axis: {');
    const errs = errorsWith({ [CUMSUM_DX]: dx });
    expect(errs).toEqual([
      `${where(CUMPROD, spec(CUMPROD), 'axis, exclusive)')}: error: formula for 'x' passes 'axis' as argument 3 of cumsum_dx, which is its 'scale' (float); its 'axis' is argument 4\n  hint: cumsum_dx(x, dy, scale, axis, exclusive) in specs/tensor/cumsum_dx.yaml; if cumsum_dx's args changed, pass by name: axis=axis; if 'scale' is meant, say so: scale=axis`,
      `${where(CUMPROD, spec(CUMPROD), 'exclusive) / x')}: error: formula for 'x' passes 'exclusive' as argument 4 of cumsum_dx, which is its 'axis' (int?); its 'exclusive' is argument 5\n  hint: cumsum_dx(x, dy, scale, axis, exclusive) in specs/tensor/cumsum_dx.yaml; if cumsum_dx's args changed, pass by name: exclusive=exclusive; if 'axis' is meant, say so: axis=exclusive`,
      `${where(CUMSUM, spec(CUMSUM), 'cumsum_dx(')}: error: formula for 'x': cumsum_dx needs 'scale', which this call does not give\n  hint: its args: cumsum_dx(x, dy, scale, axis, exclusive) in specs/tensor/cumsum_dx.yaml`,
    ]);
  });

  it("refuses an arg added to a reused schema that the reusing op's gradient ignores", () => {
    const sum = edit(CUMSUM, '  exclusive: {', '  reverse: { type: bool, default: false }\n  exclusive: {').replace(
      'exclusive=exclusive)',
      'exclusive=exclusive, reverse=reverse)',
    );
    const dx = `${spec(CUMSUM_DX).replace('out:', '  reverse: { type: bool, default: false }\nout:')}`;
    expect(dx).toMatch(/exclusive: \{ type: bool, default: false \}\n {2}reverse/);
    expect(errorsWith({ [CUMSUM]: sum, [CUMSUM_DX]: dx })).toEqual([
      `${where(CUMPROD, spec(CUMPROD), 'cumsum_dx(')}: error: cumprod reuses the args of cumsum (schema: cumsum), whose gradient reads 'reverse'; cumprod's gradient never does, so it would ignore it\n  hint: pass reverse=reverse on in cumprod's gradient, or give cumprod args of its own (args: instead of schema:)`,
    ]);
  });
});

describe('an arg added to a reused schema', () => {
  it('is refused at the reusing op when the owner tests it and the reusing op never does', () => {
    const sum = edit(CUMSUM, '  exclusive: {', '  reverse: { type: bool, default: false }\n  exclusive: {').replace(
      'grid: { axis: [null, 0, -1], exclusive: [false, true] }',
      'grid: { axis: [null, 0, -1], exclusive: [false, true], reverse: [false, true] }',
    );
    expect(sum).toContain('reverse: [false, true]');
    expect(errorsWith({ [CUMSUM]: sum })).toEqual([
      `${where(CUMPROD, spec(CUMPROD), 'cumsum\n')}: error: cumprod reuses the args of cumsum, whose tests vary 'reverse'; cumprod's tests never do, so its kernel and gradient would go untested there\n  hint: add reverse: [...] to cumprod's tests.grid (or a tests.cases entry)`,
    ]);
  });
});

describe('evaluating oracle formulas with literals and keyword args', () => {
  const values = (t: unknown) => Array.from((t as Tensor).dataSync());

  it('passes keyword args, bools, null and lists to the dispatcher', () => {
    const x = tensor([1, 2, 3, 4], { dtype: 'float64' });
    const run = (src: string, env: Record<string, unknown>) =>
      evaluateFormula(parseFormula(src), env, (op, args, keyword) => call(op, args, keyword));
    // Exclusive cumulative sum of 1, 2, 3, 4, by hand: 0, 1, 3, 6.
    expect(values(run('cumsum(x, exclusive=true)', { x }))).toEqual([0, 1, 3, 6]);
    expect(values(run('cumsum(x, null, null, false)', { x }))).toEqual([1, 3, 6, 10]);
    const m = tensor(
      [
        [1, 2],
        [3, 4],
      ],
      { dtype: 'float64' },
    );
    expect(values(run('sum(m, [0, 1], keepdims=true)', { m }))).toEqual([10]);
    expect(values(run('x * -1', { x }))).toEqual([-1, -2, -3, -4]);
  });

  it("selects a tuple op's output by name once the generator has turned it into an index", () => {
    const model = modelWith({});
    const src = oracleSource('topk(x, 2).indices', model.ops);
    expect(src).toBe('topk(x, 2)[1]');
    const x = tensor([3, 9, 1, 7], { dtype: 'float32' });
    const out = evaluateFormula(parseFormula(src), { x }, (op, args, keyword) => call(op, args, keyword));
    // The two largest of 3, 9, 1, 7 are 9 (index 1) and 7 (index 3).
    expect(values(out)).toEqual([1, 3]);
    expect(() => parseFormula('f(a=1, 2)')).toThrow(FormulaError);
  });
});

describe('the formula reference page', () => {
  it('is what the generator emits, lists every op, and its example formulas parse', () => {
    const model = modelWith({});
    const [page] = emitFormulaReference(model);
    expect(page!.path).toBe(FORMULAS_REFERENCE);
    const onDisk = readFileSync(new URL(FORMULAS_REFERENCE, REPO), 'utf8');
    for (const op of model.ops) expect(onDisk).toContain(`| ${op.name} | \`${op.name}(`);
    const examples = onDisk.split('## Examples')[1]!.split('```')[1]!;
    const formulas = [...examples.matchAll(/^ {2}\w+: ([^#\n{]+?)\s*(?:#|$)/gm)].map((m) => m[1]!.trim());
    expect(formulas.length).toBeGreaterThanOrEqual(3);
    for (const f of formulas) expect(() => parseFormula(f)).not.toThrow();
  });
});

describe('scaffolding a backward op from a call with keyword args', () => {
  it('names its args by the keywords, typed as the names passed', () => {
    const answers = {
      op: 'my_op',
      category: 'nn',
      schema: null,
      args: [
        { name: 'x', type: 'Tensor' },
        { name: 'alpha', type: 'float', default: 1 },
      ],
      grad: { kind: 'formulas', saves: ['y'], formulas: { x: 'my_op_dx(y, dy, scale=alpha)' } },
      tests: { domain: [-2, 2] },
    } as unknown as ScaffoldAnswers;
    const [dx] = missingBackwardOps(answers, { model: { ops: [] } });
    expect(dx!.op).toBe('my_op_dx');
    expect(dx!.args).toEqual([
      { name: 'y', type: 'Tensor' },
      { name: 'dy', type: 'Tensor' },
      { name: 'scale', type: 'float', default: 1 },
    ]);
  });
});
