// Issue 18, generator side: every malformed or tricky spec is refused at file:line:col with a hint, all at
// once, before anything is written; every valid spec string survives into generated code unchanged.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generators/src/emit/index.ts';
import { key, literal } from '../../generators/src/emit/escape.ts';
import { parseLock } from '../../generators/src/emit/op-ids.ts';
import { generate, loadModel } from '../../generators/src/generate.ts';
import { buildModel } from '../../generators/src/spec/build.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import { checkSpecLayout, loadSpecFile, loadSpecText, type RawSpec } from '../../generators/src/spec/load.ts';
import { smallRepo, snapshot } from './robust-repo.ts';

const SOFTMAX_DX = `op: softmax_dx
doc: backward
args:
  y: { type: Tensor }
  dy: { type: Tensor, check: like(y) }
  axis: { type: int, default: -1, check: axis(y) }
grad: none
`;
const MULTIPLY = `op: multiply
doc: a * b
args:
  a: { type: Tensor }
  b: { type: Tensor }
out: broadcast(a, b)
grad: none
`;

function build(specs: Record<string, string>) {
  const raws: RawSpec[] = [];
  const lines: string[] = [];
  for (const [file, text] of Object.entries(specs)) {
    const { spec, errors } = loadSpecText(file, text);
    lines.push(...errors.map(String));
    if (spec) raws.push(spec);
  }
  const { model, errors } = buildModel(raws);
  return { model, errors: [...lines, ...errors.map(String)] };
}

/** The errors of a softmax spec whose lines after `op:`/`doc:` are `body` (line 3 onwards). */
const softmaxErrors = (body: string, extra: Record<string, string> = {}) =>
  build({
    'specs/nn/softmax.yaml': `op: softmax\ndoc: Softmax.\n${body}`,
    'specs/nn/softmax_dx.yaml': SOFTMAX_DX,
    'specs/math/multiply.yaml': MULTIPLY,
    ...extra,
  }).errors;

const ARGS = 'args:\n  x: { type: Tensor }\n  axis: { type: int, default: -1, check: axis(x) }\n';
const GRAD = 'grad:\n  saves: [y]\n  x: softmax_dx(y, dy, axis)\n';

describe('semantic spec errors', () => {
  it('accepts the valid base spec', () => {
    expect(softmaxErrors(ARGS + GRAD + 'tests: { shapes: [[3], [2, 3]], grid: { axis: [0, -1] } }\n')).toEqual([]);
  });

  it('refuses a dtype default that is no dtype', () => {
    expect(softmaxErrors(`${ARGS}  dtype: { type: dtype, default: float128 }\n${GRAD}`)).toEqual([
      "specs/nn/softmax.yaml:6:34: error: default 'float128' of 'dtype' is not a dtype\n  hint: did you mean 'float16'?; one of: float16, float32, float64, int64, int32, int8, uint8, bool, bfloat16, int16, uint16, uint32, uint64",
    ]);
  });

  it('refuses a default that fails its own check, and names the value', () => {
    const errs = softmaxErrors(
      `${ARGS}  groups: { type: int, default: 0, check: positive }\n  p: { type: float, default: 2, check: 'range(0, 1)' }\n${GRAD}`,
    );
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:6:33: error: default of 'groups' fails its own check: 0 is not positive\n  hint: change the default or the check",
      "specs/nn/softmax.yaml:7:30: error: default of 'p' fails its own check: 2 is outside range(0, 1)\n  hint: change the default or the check",
    ]);
  });

  it('refuses a grad formula passing a tensor where an int goes, at the argument', () => {
    const errs = softmaxErrors(`${ARGS}grad:\n  saves: [y]\n  x: softmax_dx(y, dy, dy)\n`);
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:8:24: error: formula for 'x' passes a tensor as argument 3 of softmax_dx, whose 'axis' is int\n  hint: pass a int arg of the op (or a number) there",
    ]);
  });

  it('refuses a differentiable input that has no gradient formula, and accepts an int32 one', () => {
    const body =
      'args:\n  x: { type: Tensor }\n  w: { type: Tensor }\nout: broadcast(x, w)\ngrad:\n  saves: [w]\n  x: multiply(dy, w)\n';
    expect(softmaxErrors(body)).toEqual([
      "specs/nn/softmax.yaml:7:1: error: 'w' is a differentiable input of softmax but grad gives it no formula (it would silently get no gradient)\n  hint: add 'w: <formula>' under grad, or, if it takes integer or bool values, say so with tests.inputs.w.dtype: int32 (or bool)",
    ]);
    expect(softmaxErrors(`${body}tests: { inputs: { w: { dtype: int32, domain: [0, 3] } } }\n`)).toEqual([]);
  });

  it('refuses a value check on a tensor', () => {
    expect(
      softmaxErrors(`args:\n  x: { type: Tensor, check: positive }\n  axis: { type: int, default: -1 }\n${GRAD}`),
    ).toEqual([
      "specs/nn/softmax.yaml:4:29: error: check 'positive' tests a number, but 'x' is a Tensor\n  hint: a tensor's values are not checked at call time; remove the check, or put it on a number arg",
    ]);
  });

  it('refuses test shapes no grid combination fits, and operands that cannot broadcast', () => {
    expect(softmaxErrors(`${ARGS}${GRAD}tests: { shapes: [[3], [2, 3]], grid: { axis: [1] } }\n`)).toEqual([
      "specs/nn/softmax.yaml:9:19: error: test shapes [[3]] do not fit softmax: axis 1 is out of range for 'x' of rank 1\n  hint: give shapes of the rank the op takes; a call that must fail belongs under tests.errors",
    ]);
    const mul = build({ 'specs/math/multiply.yaml': `${MULTIPLY}tests: { shapes: [[[2, 3], [4]]] }\n` }).errors;
    expect(mul).toEqual([
      "specs/math/multiply.yaml:8:19: error: test shapes [[2,3],[4]] do not fit multiply: 'b' [4] does not broadcast with the other operands\n  hint: give shapes of the rank the op takes; a call that must fail belongs under tests.errors",
    ]);
  });

  it('refuses grid values of the wrong type', () => {
    expect(softmaxErrors(`${ARGS}${GRAD}tests: { grid: { axis: [0, "1", 0.5] } }\n`)).toEqual([
      'specs/nn/softmax.yaml:9:28: error: test grid value "1" does not fit \'axis\', which is int',
      "specs/nn/softmax.yaml:9:33: error: test grid value 0.5 does not fit 'axis', which is int",
    ]);
  });

  it('refuses an empty grid list and empty shapes, which would leave the op without a test case', () => {
    expect(softmaxErrors(`${ARGS}${GRAD}tests: { shapes: [], grid: { axis: [] } }\n`)).toEqual([
      "specs/nn/softmax.yaml:9:36: error: test grid for 'axis' is empty, so the op would get no test case\n  hint: give 'axis' at least one value, or remove it from the grid",
      'specs/nn/softmax.yaml:9:18: error: tests.shapes is empty, so the op would get no test case\n  hint: give at least one shape',
    ]);
  });

  it('refuses typos in tests.cases and tests.errors arg names, with a suggestion', () => {
    const errs = softmaxErrors(
      `${ARGS}${GRAD}tests:\n  cases: [{ shapes: [[3]], args: { axsi: 0 } }]\n  errors: [{ shapes: [[3]], args: { axes: 5 }, message: invalid }]\n`,
    );
    expect(errs).toEqual([
      "specs/nn/softmax.yaml:10:36: error: tests.cases[0] names 'axsi', which is not a non-tensor arg of softmax\n  hint: did you mean 'axis'?",
      "specs/nn/softmax.yaml:11:37: error: tests.errors[0] names 'axes', which is not a non-tensor arg of softmax\n  hint: did you mean 'axis'?",
    ]);
  });

  it('refuses an oracle calling an op with the wrong number of arguments', () => {
    expect(softmaxErrors(`${ARGS}${GRAD}tests: { oracle: "multiply(x, x, x)" }\n`)).toEqual([
      "specs/nn/softmax.yaml:9:18: error: oracle: multiply takes 2 arguments (a, b), got 3\n  hint: multiply's args are declared in specs/math/multiply.yaml; remove the extra argument",
    ]);
  });

  it('refuses an empty relay op and a relay op holding code', () => {
    expect(softmaxErrors(`${ARGS}${GRAD}relay: { op: "" }\n`)).toEqual([
      'specs/nn/softmax.yaml:9:14: error: relay op is empty\n  hint: write the Relay op as Relay prints it, e.g. nn.softmax, or remove relay:',
    ]);
    expect(softmaxErrors(`${ARGS}${GRAD}relay: { op: "nn.softmax'); process.exit(1); ('" }\n`)[0]).toMatch(
      /^specs\/nn\/softmax\.yaml:9:14: error: relay op "nn\.softmax'\); process\.exit\(1\); \('" is not a Relay op name/,
    );
  });

  it('reports every error of every file at once', () => {
    const errs = softmaxErrors(
      `args:\n  x: { type: Tensor, check: positive }\n  axis: { type: int, default: 9, check: 'range(0, 3)' }\n${GRAD}relay: { op: "" }\n`,
      { 'specs/math/multiply.yaml': `${MULTIPLY}tests: { grid: { b: [1] } }\n` },
    );
    expect(errs.map((e) => e.split(': error:')[0])).toEqual([
      'specs/math/multiply.yaml:8:18',
      'specs/nn/softmax.yaml:4:29',
      'specs/nn/softmax.yaml:5:31',
      'specs/nn/softmax.yaml:9:14',
    ]);
  });
});

describe('YAML and text errors, located where the problem starts', () => {
  const yamlErrors = (text: string) => loadSpecText('specs/nn/bad.yaml', text).errors.map(String);

  it('points at an unclosed flow mapping or sequence where it opens', () => {
    expect(yamlErrors('op: bad\ndoc: x\nargs:\n  x: { type: Tensor\n  y: 3\ngrad: none\n')).toEqual([
      "specs/nn/bad.yaml:4:6: error: YAML: '{' is never closed\n  hint: close the flow mapping with '}' on the same value",
    ]);
    expect(yamlErrors('op: bad\ndoc: x\ntests:\n  shapes: [[3], [4]\ngrad: none\n')).toEqual([
      "specs/nn/bad.yaml:4:11: error: YAML: '[' is never closed\n  hint: close the flow sequence with ']' on the same value",
    ]);
  });

  it('points at an unterminated quote where it opens', () => {
    expect(yamlErrors('op: bad\ndoc: "hello\nargs:\n  x: { type: Tensor }\ngrad: none\n')).toEqual([
      'specs/nn/bad.yaml:2:6: error: YAML: the string opened by " is never closed\n  hint: end it with "',
    ]);
    expect(yamlErrors("op: bad\ndoc: 'it''s\ngrad: none\n")).toEqual([
      "specs/nn/bad.yaml:2:6: error: YAML: the string opened by ' is never closed\n  hint: end it with '",
    ]);
  });

  it('refuses an alias to a missing anchor instead of crashing', () => {
    expect(yamlErrors('op: bad\ndoc: x\nargs:\n  x: *tensor\n')).toEqual([
      "specs/nn/bad.yaml:4:6: error: YAML: alias '*tensor' names no anchor defined before it\n  hint: define '&tensor' on an earlier value, or write the value out",
    ]);
  });

  it('refuses a NUL byte and invalid UTF-8 at their position', () => {
    expect(yamlErrors('op: bad\ndoc: a\u0000b\n')).toEqual([
      'specs/nn/bad.yaml:2:7: error: control character U+0000 in the spec\n  hint: remove it; specs are plain text',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'raf-op-utf8-'));
    try {
      const file = join(dir, 'bad.yaml');
      writeFileSync(
        file,
        Buffer.concat([Buffer.from('op: bad\ndoc: caf'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
      );
      expect(loadSpecFile(file, 'specs/nn/bad.yaml').errors.map(String)).toEqual([
        'specs/nn/bad.yaml:2:9: error: invalid UTF-8 (byte 0xc3 at offset 16)\n  hint: save the spec as UTF-8',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a corrupt op-id lock at its position', () => {
    const bad = (text: string) => {
      try {
        parseLock(text);
      } catch (e) {
        return (e as SpecErrors).errors.map(String);
      }
      return [];
    };
    expect(bad('{\n  "ops": {\n    "abs": "0xe2ce00f5",,\n')[0]).toMatch(
      /^specs\/op-ids\.lock\.json:3:25: error: not valid JSON/,
    );
    expect(bad('{ "ops": { "abs": 7 } }')).toEqual([
      "specs/op-ids.lock.json:1:12: error: id of 'abs' is 7, not 0x followed by 8 hex digits\n  hint: restore it from git (git checkout -- specs/op-ids.lock.json)",
    ]);
  });
});

describe('spec layout', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('refuses .yml, specs outside a category, nested folders and category names that are no identifier', () => {
    const root = mkdtempSync(join(tmpdir(), 'raf-op-layout-'));
    dirs.push(root);
    const put = (p: string) => {
      mkdirSync(join(root, 'specs', p, '..'), { recursive: true });
      writeFileSync(join(root, 'specs', p), 'op: x\ndoc: x\n');
    };
    ['math/ok.yaml', 'math/typo.yml', 'loose.yaml', 'My Ops/a.yaml', 'README/b.yaml', 'nn/deep/c.yaml'].forEach(put);
    writeFileSync(join(root, 'specs/op-ids.lock.json'), '{}');
    expect(checkSpecLayout(root).map(String)).toEqual([
      "specs/My Ops/a.yaml:1:1: error: category folder 'My Ops' is not a lower_snake_case identifier\n  hint: rename it, e.g. specs/my_ops/",
      "specs/README/b.yaml:1:1: error: category folder 'README' is not a lower_snake_case identifier\n  hint: rename it, e.g. specs/readme/",
      'specs/loose.yaml:1:1: error: spec file loose.yaml is outside a category folder\n  hint: move it to specs/<category>/loose.yaml',
      'specs/math/typo.yml:1:1: error: spec specs/math/typo.yml does not end in .yaml, so it would be skipped\n  hint: rename it to typo.yaml',
      'specs/nn/deep:1:1: error: folder specs/nn/deep is nested inside a category\n  hint: specs live one level down: specs/<category>/<op>.yaml',
    ]);
  });

  it('a category folder named README is refused by gen with nothing written', async () => {
    const root = smallRepo('readme');
    dirs.push(root);
    mkdirSync(join(root, 'specs/README'));
    writeFileSync(
      join(root, 'specs/README/relu.yaml'),
      'op: relu\ndoc: r\nargs:\n  x: { type: Tensor }\ncompute: max(x, 0)\n',
    );
    const before = snapshot(root);
    await expect(generate(root)).rejects.toThrow("category folder 'README' is not a lower_snake_case identifier");
    expect(snapshot(root)).toEqual(before);
  });
});

describe('escaping: every valid spec string survives into generated code', () => {
  const NASTY_DOC =
    'Ends a comment */ early, `backticks`, ${template} and \\ backslashes, \'single\' and "double" quotes.';
  const NASTY_DEFAULT = 'it\'s "quoted" \\ and ${x} `y` */';

  it('literal() and key() round-trip through TypeScript', () => {
    for (const s of [NASTY_DOC, NASTY_DEFAULT, 'line\nbreak\u2028sep', "nn.softmax'); process.exit(1); ('"]) {
      // eslint-disable-next-line no-new-func
      expect(new Function(`return ${literal(s)};`)()).toBe(s);
      expect(new Function(`return { ${key(s)}: 1 };`)()).toEqual({ [s]: 1 });
    }
  });

  it('a doc and a string default with comment ends, backticks, ${ and quotes give valid TypeScript holding them verbatim', () => {
    const { model, errors } = build({
      'specs/nn/softmax.yaml': `op: softmax\ndoc: ${JSON.stringify(NASTY_DOC)}\n${ARGS}  mode: { type: string, default: ${JSON.stringify(NASTY_DEFAULT)}, doc: ${JSON.stringify(NASTY_DOC)} }\n${GRAD}relay: { op: nn.softmax, attrs: { axis: axis } }\n`,
      'specs/nn/softmax_dx.yaml': SOFTMAX_DX,
      'specs/math/multiply.yaml': MULTIPLY,
    });
    expect(errors).toEqual([]);
    const files = Object.values(emitAll(model))
      .flat()
      .filter((f) => f.path.endsWith('.ts') && f.source === 'specs/nn/softmax.yaml');
    expect(files.length).toBeGreaterThan(5);
    const strings: string[] = [];
    const comments: string[] = [];
    for (const f of files) {
      const out = ts.transpileModule(f.content, { reportDiagnostics: true, fileName: f.path });
      expect(
        out.diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
        f.path,
      ).toEqual([]);
      const sf = ts.createSourceFile(f.path, f.content, ts.ScriptTarget.ES2022, true);
      const visit = (n: ts.Node): void => {
        if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) strings.push(n.text);
        for (const doc of ts.getJSDocCommentsAndTags(n)) comments.push(doc.getText());
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    // The API's doc field and the schema's default hold the exact strings.
    expect(strings).toContain(NASTY_DOC);
    expect(strings).toContain(NASTY_DEFAULT);
    // The JSDoc keeps the text, with only the comment end escaped.
    expect(comments.some((c) => c.includes(NASTY_DOC.replace('*/', '*\\/')))).toBe(true);
  });
});

describe('loadModel on disk', () => {
  it('refuses a .yml spec beside valid ones, naming it', () => {
    const root = smallRepo('yml');
    try {
      writeFileSync(join(root, 'specs/math/relu.yml'), 'op: relu\ndoc: r\n');
      expect(() => loadModel(root)).toThrow(
        'specs/math/relu.yml:1:1: error: spec specs/math/relu.yml does not end in .yaml',
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
