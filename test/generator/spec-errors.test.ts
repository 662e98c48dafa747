// Spec validation: every error names file:line:col, says what to write instead, and all are reported at once.

import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText, type RawSpec } from '../../generators/src/spec/load.ts';

const SOFTMAX_DX = `op: softmax_dx
doc: backward
args:
  y: { type: Tensor }
  dy: { type: Tensor }
  axis: { type: int, default: -1 }
grad: none
`;

/** Builds the model from in-memory specs and returns the error lines. */
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

const softmax = (body: string) => ({
  'specs/nn/softmax.yaml': `op: softmax\ndoc: Softmax.\n${body}`,
  'specs/nn/softmax_dx.yaml': SOFTMAX_DX,
});

describe('spec errors', () => {
  it('accepts a valid spec', () => {
    expect(
      errorsOf(
        softmax(
          'args:\n  x: { type: Tensor }\n  axis: { type: int, default: -1, check: axis(x) }\ngrad:\n  saves: [y]\n  x: softmax_dx(y, dy, axis)\n',
        ),
      ),
    ).toEqual([]);
  });

  it('lets a test case leave an optional tensor out (null, or off the end), never a required one', () => {
    const spec = (cases: string) => ({
      'specs/nn/gated.yaml': `op: gated
doc: A gated op.
args:
  x: { type: Tensor }
  w: { type: Tensor }
  b: { type: Tensor?, default: null }
  s: { type: Tensor?, default: null }
out: same(x)
grad: none
tests:
  cases:
${cases}`,
    });
    expect(errorsOf(spec('    - { shapes: [[2], [2], null, [2]] }\n    - { shapes: [[2], [2]] }\n'))).toEqual([]);
    expect(errorsOf(spec('    - { shapes: [[2], null] }\n'))).toEqual([
      'specs/nn/gated.yaml:12:17: error: shapes are lists of non-negative integers',
    ]);
    expect(errorsOf(spec('    - { shapes: [[2]] }\n'))).toEqual([
      'specs/nn/gated.yaml:12:17: error: test case gives 1 shapes for 4 tensor args (x, w, b, s)',
    ]);
  });

  it('names an unknown field with its position and a suggestion', () => {
    const errs = errorsOf(softmax('args:\n  x: { type: Tensor }\ngrad: none\nfusoin: opaque\n'));
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:6:1: error: unknown field 'fusoin' in the spec\n  hint: did you mean 'fusion'?; allowed: op, doc, schema, args, out, compute, grad, fusion, recognize, cast, promote, relay, onnx, dialects, tests",
    ]);
  });

  it('reports a wrong type and an unknown enum value with their positions', () => {
    const errs = errorsOf(softmax('args:\n  x: { type: Tensor }\n  axis: { type: integer }\ngrad: none\nfusion: 3\n'));
    expect(
      errs.some((e) =>
        e.startsWith("specs/nn/softmax.yaml:5:17: error: 'args.axis.type' is 'integer', which is not allowed"),
      ),
    ).toBe(true);
    expect(
      errs.some((e) => e.startsWith("specs/nn/softmax.yaml:7:9: error: 'fusion' is '3', which is not allowed")),
    ).toBe(true);
  });

  it('refuses a required arg after an optional one', () => {
    const errs = errorsOf(softmax('args:\n  axis: { type: int, default: -1 }\n  x: { type: Tensor }\ngrad: none\n'));
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:5:3: error: required arg 'x' comes after optional arg 'axis'\n  hint: move 'x' before 'axis', or give it a default",
    ]);
  });

  it('refuses a foreign default for an attr the mapping does not rename', () => {
    const errs = errorsOf(
      softmax(
        'args:\n  x: { type: Tensor }\n  axis: { type: int, default: -1 }\ngrad: none\nonnx: { op: Softmax, attrs: { axis: axis }, defaults: { axes: 1 } }\nrelay: { op: nn.softmax, attrs: { axis: axis }, defaults: { axis: 1 } }\n',
      ),
    );
    expect(errs).toEqual([
      expect.stringMatching(
        /^specs\/nn\/softmax\.yaml:7:\d+: error: ONNX default 'axes' is not a mapped attr\n  hint: did you mean 'axis'\?/,
      ),
    ]);
  });

  it('refuses a duplicate op, naming the first definition', () => {
    const errs = errorsOf({
      ...softmax('args:\n  x: { type: Tensor }\ngrad: none\n'),
      'specs/math/softmax.yaml': 'op: softmax\ndoc: again\nargs:\n  x: { type: Tensor }\ngrad: none\n',
    });
    expect(errs).toContain(
      "specs/nn/softmax.yaml:1:5: error: duplicate op 'softmax'\n  hint: already defined in specs/math/softmax.yaml; rename one of them",
    );
  });

  it('refuses reuse of a schema no spec defines', () => {
    const errs = errorsOf({
      ...softmax('args:\n  x: { type: Tensor }\ngrad: none\n'),
      'specs/nn/log_softmax.yaml': 'op: log_softmax\ndoc: d\nschema: softmaxx\ngrad: none\n',
    });
    expect(errs).toEqual([
      "specs/nn/log_softmax.yaml:3:9: error: schema 'softmaxx' is not defined by any spec\n  hint: did you mean 'softmax'?",
    ]);
  });

  it('refuses a gradient that reads what it does not save, and a backward op no spec defines', () => {
    const errs = errorsOf(
      softmax(
        'args:\n  x: { type: Tensor }\n  axis: { type: int, default: -1 }\ngrad:\n  saves: [y]\n  x: softmax_dxx(x, dy, axis)\n',
      ),
    );
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:8:18: error: formula for 'x' reads 'x', which the backward does not keep\n  hint: add 'x' to grad.saves",
      "specs/nn/softmax.yaml:8:6: error: backward op 'softmax_dxx' is defined by no spec\n  hint: did you mean 'softmax_dx'?",
    ]);
  });

  it('refuses a cast rule or a relay attr naming an arg that does not exist', () => {
    const errs = errorsOf(
      softmax(
        'args:\n  x: { type: Tensor }\n  axis: { type: int, default: -1 }\ngrad: none\ncast: { rule: never, data_args: [z] }\nrelay: { op: nn.softmax, attrs: { axis: axs } }\n',
      ),
    );
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:7:34: error: cast rule names 'z', which is not a tensor arg of softmax\n  hint: did you mean 'x'?",
      "specs/nn/softmax.yaml:8:41: error: relay attr 'axis' names 'axs', which is not an arg of softmax\n  hint: did you mean 'axis'?",
    ]);
  });

  it('refuses a compute expression that does not parse, pointing at the column', () => {
    const errs = errorsOf({
      'specs/math/act.yaml': 'op: act\ndoc: d\nargs:\n  x: { type: Tensor }\ncompute: x * clamp(x + 3, 0) / 6\n',
    });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^specs\/math\/act\.yaml:5:\d+: error: compute: clamp takes 3 arguments, got 2/);
  });

  it('reports YAML syntax errors with their position', () => {
    const errs = errorsOf({ 'specs/nn/bad.yaml': 'op: bad\ndoc: [unclosed\n' });
    expect(errs[0]).toMatch(/^specs\/nn\/bad\.yaml:\d+:\d+: error: YAML: /);
  });

  it('reports every error of every file in one run', () => {
    const errs = errorsOf({
      ...softmax('args:\n  x: { type: Tensor }\ngrad: none\nfusion: fast\n'),
      'specs/nn/other.yaml': 'op: other\ndoc: d\nargs:\n  x: { type: Tensor }\n',
    });
    expect(errs).toHaveLength(2);
    expect(errs[0]).toContain("specs/nn/softmax.yaml:6:9: error: 'fusion' is 'fast'");
    expect(errs[1]).toContain("specs/nn/other.yaml:1:5: error: op 'other' has tensor args but no grad");
  });
});
