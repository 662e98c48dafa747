// Issue 14/18: names that become identifiers in generated code are refused at spec level, with file:line:col and a hint.

import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { didYouMean } from '../../generators/src/spec/errors.ts';
import { loadSpecText, type RawSpec } from '../../generators/src/spec/load.ts';

function errorsOf(specs: Record<string, string>): string[] {
  const raws: RawSpec[] = [];
  const lines: string[] = [];
  for (const [file, text] of Object.entries(specs)) {
    const { spec, errors } = loadSpecText(file, text);
    lines.push(...errors.map(String));
    if (spec) raws.push(spec);
  }
  lines.push(...buildModel(raws).errors.map(String));
  return lines;
}

/** A differentiable elementwise op with one extra arg (line 5) whose name is under test. */
const withArg = (name: string, type = 'float', grad = '') => ({
  'specs/math/foo.yaml': `op: foo
doc: Foo.
args:
  x: { type: Tensor }
  ${name}: { type: ${type}, default: 1 }
compute: x * 2
${grad}`,
});

describe('identifier collisions', () => {
  it('accepts ordinary names', () => {
    expect(errorsOf(withArg('alpha'))).toEqual([]);
  });

  it.each(['default', 'new', 'class', 'delete', 'eval', 'arguments'])('refuses the reserved word %s as an arg', (w) => {
    expect(errorsOf(withArg(w))).toEqual([
      `specs/math/foo.yaml:5:3: error: arg '${w}' is a reserved word in TypeScript\n  hint: rename it, e.g. '${w}_value'`,
    ]);
  });

  it.each(['invoke', 'out', 'result', 'args'])('refuses %s, a name the generated code declares', (w) => {
    const errs = errorsOf(withArg(w));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(new RegExp(`^specs/math/foo.yaml:5:3: error: arg '${w}' collides with '${w}'`));
  });

  it("refuses xs beside a tensor x in a compute op (the CPU kernel's locals)", () => {
    expect(errorsOf(withArg('xs'))[0]).toMatch(
      /^specs\/math\/foo.yaml:5:3: error: arg 'xs' collides with a local .* tensor 'x'/,
    );
  });

  it('refuses an arg named dy in a differentiable op, and y when the output y is saved', () => {
    expect(errorsOf(withArg('dy'))[0]).toMatch(
      /^specs\/math\/foo.yaml:5:3: error: arg 'dy' collides with the gradient's 'dy'/,
    );
    const spec = `op: foo
doc: Foo.
args:
  x: { type: Tensor }
  y: { type: float, default: 1 }
grad:
  saves: [y]
  x: dy
`;
    expect(errorsOf({ 'specs/math/foo.yaml': spec })[0]).toMatch(
      /^specs\/math\/foo.yaml:5:3: error: arg 'y' collides with the gradient's 'y' \(the saved output\)/,
    );
  });

  it('accepts dy and y as args of an op with no gradient (backward ops take them)', () => {
    expect(errorsOf(withArg('dy', 'float', 'grad: none\n'))).toEqual([]);
  });

  it('refuses an arg named like an output, and Object.prototype members', () => {
    const spec = `op: pick
doc: Pick.
args:
  x: { type: Tensor }
  values: { type: int, default: 1 }
out: { tuple: custom(pick_rule), outputs: [values, indices] }
grad: none
`;
    expect(errorsOf({ 'specs/tensor/pick.yaml': spec })[0]).toMatch(
      /^specs\/tensor\/pick.yaml:5:3: error: arg 'values' has the name of an output of pick/,
    );
    expect(errorsOf(withArg('to_string'))[0]).toMatch(
      /^specs\/math\/foo.yaml:5:3: error: arg 'to_string' would shadow Object.prototype.toString/,
    );
  });

  const op = (name: string, category = 'math') => ({
    [`specs/${category}/${name}.yaml`]: `op: ${name}\ndoc: An op.\nargs:\n  x: { type: Tensor }\ncompute: x * 2\ngrad: none\n`,
  });

  it('refuses op names whose camelCase collides with another op', () => {
    const errs = errorsOf({ ...op('avg_pool2d', 'nn'), ...op('avg_pool_2d', 'nn') });
    expect(errs).toEqual([
      "specs/nn/avg_pool_2d.yaml:1:5: error: op 'avg_pool_2d' and 'avg_pool2d' (specs/nn/avg_pool2d.yaml) are both 'avgPool2d' in TypeScript\n  hint: rename one of them; names that differ only in underscores before a digit or letter collide",
    ]);
    expect(errorsOf({ ...op('foo2'), ...op('foo_2') })).toHaveLength(1);
  });

  it.each([
    ['constructor', /would shadow Object.prototype.constructor/],
    ['to_string', /would shadow Object.prototype.toString/],
    ['default', /is a reserved word/],
    ['new', /is a reserved word/],
    ['invoke', /would be the function 'invoke'/],
  ])('refuses the op name %s', (name, message) => {
    const errs = errorsOf(op(name));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(new RegExp(`^specs/math/${name}.yaml:1:5: error: `));
    expect(errs[0]).toMatch(message);
  });

  it('refuses a rule name that cannot be a function', () => {
    const spec = `op: foo\ndoc: Foo.\nargs:\n  x: { type: Tensor }\nout: custom(default)\ngrad: none\n`;
    expect(errorsOf({ 'specs/math/foo.yaml': spec })[0]).toMatch(/custom\(default\) would be named 'default'/);
  });
});

describe('did you mean', () => {
  it("prefers a case-insensitive match: 'B' suggests 'b', not 'a'", () => {
    expect(didYouMean('B', ['a', 'b'])).toBe("did you mean 'b'?");
  });
});
