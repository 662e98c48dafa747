// Emitter: the formula language reference (docs/reference/formulas.md), generated from the grammar in
// spec/formula.ts, the type rules of spec/formula-types.ts and every op a formula can call, so it cannot go stale.

import { FUNCTIONS, FUNCTION_NAMES } from '../expr/ast.ts';
import { FORMULA_GRAMMAR, FORMULA_NEGATE, FORMULA_OPERATORS } from '../spec/formula.ts';
import type { Model, OpModel } from '../spec/model.ts';
import { cell, markdownFile, signature } from './docs.ts';
import type { EmittedFile } from './files.ts';

export const FORMULAS_REFERENCE = 'docs/reference/formulas.md';

/** What each parameter type accepts in a formula: the rules the generator checks at `gen`. */
const ACCEPTS: readonly (readonly [string, string])[] = [
  [
    'Tensor',
    'a tensor (a tensor arg, `y`, `dy`, one output `dy[0]`, a call); a number, unless the arg has `check: like(...)` (a number has no shape); not a list of tensors',
  ],
  ['Tensor?', 'as Tensor, or `null`'],
  ['Tensor[]', 'a list of tensors: a Tensor[] arg, a tuple op’s `y` or `dy`, a tuple op’s result, `[a, b]`'],
  ['int', 'an int literal (`0`, `-1`) or an int arg; not a float, not a bool'],
  [
    'float',
    'a number literal (`1`, `0.5`) or a float arg; an int arg only by keyword (`scale=axis`): passed by position it is refused, since that is how a shifted signature shows',
  ],
  ['bool', '`true`, `false` or a bool arg; never a number'],
  ['int[]', 'a list of ints (`[0, 1]`) or an int[] arg; in a tests.oracle also one int (the runtime makes it a list)'],
  ['int|int[]', 'an int or a list of ints'],
  ['float[]', 'a list of numbers, or a float[] or int[] arg'],
  ['dtype, string', 'an arg of that type'],
  ['T? (optional)', 'as T, or `null`'],
];

export function emitFormulaReference(model: Model): EmittedFile[] {
  return [
    markdownFile(
      FORMULAS_REFERENCE,
      'formulas',
      'generators/src/spec/formula.ts and specs/**/*.yaml',
      formulasPage(model),
    ),
  ];
}

function formulasPage(model: Model): string {
  const width = Math.max(...FORMULA_GRAMMAR.map(([n]) => n.length));
  const operators = [
    ...Object.entries(FORMULA_OPERATORS).map(([sym, op]) => `| \`a ${sym} b\` | \`${op}(a, b)\` |`),
    `| \`-a\` | \`${FORMULA_NEGATE}(a)\` |`,
  ];
  const callable = [...model.ops].sort((a, b) => (a.name < b.name ? -1 : 1));
  return [
    '# Formula reference',
    '',
    'Formulas say what an op’s gradient is (`grad:`, one formula per tensor input) and what a test compares its result',
    'with (`tests.oracle`, for ops ONNX lacks). A formula calls ops by name; `gen` checks each call against the called',
    'op’s schema (arity, keyword names, tensor vs number vs bool vs list, tuple outputs) and refuses a mismatch at the',
    'formula’s file:line:col. The `compute:` expressions of elementwise ops are another language (see the end).',
    '',
    '## Grammar',
    '',
    '```',
    ...FORMULA_GRAMMAR.map(([name, rule]) => `${name.padEnd(width)} := ${rule}`),
    '```',
    '',
    'Operators bind as usual (`*` `/` before `+` `-`, left to right); whitespace is free. A keyword argument',
    '(`exclusive=true`) names an arg of the called op; positional arguments come first. `true`, `false` and `null`',
    'are literals, so no arg or output may be named so.',
    '',
    '## Operators',
    '',
    'Each operator is a call of an op (its spec must exist). Arithmetic on numbers alone stays a number, so in',
    '`3 * alpha * x` the factor `3 * alpha` is computed once and takes x’s dtype.',
    '',
    '| written | calls |',
    '| --- | --- |',
    ...operators,
    '',
    '## Names a formula reads',
    '',
    '| where | names |',
    '| --- | --- |',
    '| `grad:` | what `grad.saves` keeps (tensor args, `y` the output), `dy` (the output’s gradient), every non-tensor arg |',
    '| `tests.oracle` | every arg of the op |',
    '',
    'A tuple op (`out: { tuple: ... }`) has a list for `y` and `dy`, one tensor per output; a call of a tuple op gives a',
    'list too. Select one output by index (`dy[0]`) or, where the op names its outputs (`outputs: [values, indices]`),',
    'by name (`dy.values`, `topk(x, 1).indices`). A list used as one tensor is refused, and a tuple op with named',
    'outputs gives one oracle per output (`oracle: { values: ..., indices: ... }`).',
    '',
    '## What an argument accepts',
    '',
    '| parameter type | accepts |',
    '| --- | --- |',
    ...ACCEPTS.map(([t, what]) => `| \`${cell(t)}\` | ${cell(what)} |`),
    '',
    'A gradient must give a tensor (a list of tensors for a Tensor[] input); an oracle gives what the op returns.',
    'When a called op’s args change (one added before another, a new required one), every formula that calls it is',
    'checked again: a call one argument short, or one whose arguments now land on args of another type, is refused',
    'with the callee’s spec named. So is an arg passed by position to an op that has an arg of that name at another',
    'position (`softmax_dx(y, dy, axis)` once softmax_dx takes `(y, dy, scale, axis)`); a deliberate swap says so by',
    'keyword (`layout_transform(dy, src_layout=dst_layout, dst_layout=src_layout)`). Keyword arguments keep a call',
    'right across such changes:',
    '`softmax_dx(y, dy, axis=axis)`. An op that reuses another’s args (`schema:`) must pass on to its gradient every',
    'arg the other’s gradient reads, and its tests must vary every arg the other’s tests vary.',
    '',
    '## Examples',
    '',
    '```yaml',
    'grad:',
    '  saves: [y]',
    '  x: softmax_dx(y, dy, axis)                    # a backward op, positional',
    'grad:',
    '  saves: [x]',
    '  x: cumsum_dx(x, dy, axis=axis, exclusive=exclusive)  # keyword arguments',
    'grad:',
    '  saves: [a, b]',
    '  a: where(greater_equal(a, b), dy, 0)          # a number where a tensor goes',
    'tests:',
    '  oracle: { values: "topk(x, k).values", indices: "topk(x, k)[1]" }  # outputs by name or index',
    '```',
    '',
    `## Ops a formula can call (${callable.length})`,
    '',
    'Every op of this repository, with its args in order (a keyword argument uses these names) and its result.',
    '',
    '<!-- prettier-ignore -->',
    '| op | signature | spec |',
    '| --- | --- | --- |',
    ...callable.map(
      (op) =>
        `| ${op.name} | \`${cell(signatureText(op))}\` | ${op.derivedFrom ? `derived from ${op.derivedFrom}` : op.file} |`,
    ),
    '',
    '## compute: expression functions',
    '',
    'Elementwise ops may instead give `compute:`, an expression over tensor elements from which kernels and a derived',
    'gradient are generated. It has `+ - * / **`, comparisons, `&& || !`, `pi`, and these functions:',
    '',
    '| function | args | meaning |',
    '| --- | --- | --- |',
    ...FUNCTION_NAMES.map((n) => `| \`${n}\` | ${FUNCTIONS[n].arity} | ${cell(FUNCTIONS[n].meaning)} |`),
  ].join('\n');
}

function signatureText(op: OpModel): string {
  const s = signature(op);
  return op.out.outputs ? `${s} (${op.out.outputs.join(', ')})` : s;
}
