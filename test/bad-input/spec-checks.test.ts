// Spec facts checked at gen: a fusion pattern must fit what the op computes (its out: rule, tuple outputs, compute:,
// axis args), and integers must be exactly what the spec says (no YAML integer beyond ±(2^53 − 1), int args within
// what the runtime stores exactly, an integer input's test domain within its dtype), and the generated NaN/±inf case's
// arg sets must be calls the op accepts on its 1-D rows and reach the suite. Each refusal is asserted at the
// file:line:col counted by hand here, with its hint; a refused run writes nothing.

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';
import { fusionProblem } from '../../generators/src/spec/fusion-check.ts';
import { generate } from '../../generators/src/generate.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import { REPO, SPECS, spec, errorsWith as allErrorsWith, where, edit } from './spec-texts.ts';

/** Every error, as printed, of the changed files only. */
function errorsWith(changes: Record<string, string>): string[] {
  return allErrorsWith(changes).filter((e) => Object.keys(changes).some((f) => e.startsWith(`${f}:`)));
}

const SOFTMAX = 'specs/nn/softmax.yaml';
const MATMUL = 'specs/linalg/matmul.yaml';
const TOPK = 'specs/tensor/topk.yaml';
const EXP = 'specs/math/exp.yaml';
const CUMSUM = 'specs/tensor/cumsum.yaml';
const BITWISE_NOT = 'specs/math/bitwise_not.yaml';

describe('fusion patterns checked against the op', () => {
  it('accepts every repository spec as written', () => {
    const raws = [...SPECS].map(([f, t]) => loadSpecText(f, t).spec!);
    const { model } = buildModel(raws);
    expect(model.ops.length).toBeGreaterThan(150);
    const wrong = model.ops.filter((op) => fusionProblem(op)).map((op) => `${op.name}: ${fusionProblem(op)!.why}`);
    expect(wrong).toEqual([]);
  });

  it('refuses elemwise on softmax, which reads its whole axis', () => {
    const text = edit(SOFTMAX, 'fusion: opaque', 'fusion: elemwise');
    expect(errorsWith({ [SOFTMAX]: text })).toEqual([
      `${where(SOFTMAX, text, 'elemwise')}: error: fusion: elemwise does not fit softmax: it reads along 'axis' ` +
        `(check: axis(x)), so an output element depends on a whole axis of 'x'\n` +
        '  hint: write fusion: opaque (or injective if each output element is one input element, moved); ' +
        'the graph fuser trusts the pattern, so a wrong one fuses into wrong numbers',
    ]);
  });

  it('refuses elemwise on matmul', () => {
    const text = edit(MATMUL, 'fusion: out_ewise_fusable', 'fusion: elemwise');
    const errors = errorsWith({ [MATMUL]: text });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^${where(MATMUL, text, 'elemwise')}: error: fusion: elemwise does not fit matmul: its out: matmul\\(a, b\\) ` +
          'does not compute each output element from the same element of each input\n' +
          '  hint: a matrix product is fusion: out_ewise_fusable;',
      ),
    );
  });

  it('refuses elemwise on a tuple op (topk: values and indices)', () => {
    const text = edit(TOPK, 'fusion: opaque', 'fusion: elemwise');
    const errors = errorsWith({ [TOPK]: text });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      `${where(TOPK, text, 'elemwise')}: error: fusion: elemwise does not fit topk: it returns several outputs (values, indices), which elemwise cannot fuse`,
    );
  });

  it('refuses comm_reduce on exp, which computes element by element', () => {
    const text = edit(EXP, 'fusion: elemwise', 'fusion: comm_reduce');
    expect(errorsWith({ [EXP]: text })).toEqual([
      `${where(EXP, text, 'comm_reduce')}: error: fusion: comm_reduce does not fit exp: its out: same(x) and ` +
        'compute: exp(x) do not reduce (a reduction has out: reduce(x, axis, keepdims))\n' +
        '  hint: an op computed element by element is fusion: elemwise; the graph fuser trusts the pattern, so a ' +
        'wrong one fuses into wrong numbers',
    ]);
  });

  it('refuses injective on a backward op that reduces', () => {
    const file = 'specs/nn/bias_add_db.yaml';
    const text = [
      'op: bias_add_db',
      'doc: Backward of bias_add for b, dy summed over every axis but the bias axis.',
      'args:',
      '  dy: { type: Tensor }',
      '  axis: { type: "int[]?", default: null, check: axes(dy) }',
      'out: reduce(dy, axis)',
      'grad: none',
      'fusion: injective',
      'dialects: { cpu: 10 }',
      '',
    ].join('\n');
    const errors = errorsWith({ [file]: text });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      `${where(file, text, 'injective')}: error: fusion: injective does not fit bias_add_db: its out: reduce(dy, axis) ` +
        'sums or combines many input elements into one, which is not an index-only mapping\n' +
        '  hint: a reduction is fusion: comm_reduce',
    );
  });
});

describe('integers exactly as written', () => {
  it('refuses an int default of 2^53 + 1, which YAML would read as 2^53', () => {
    const text = edit(
      CUMSUM,
      '  dtype: { type: "dtype?"',
      '  k: { type: int, default: 9007199254740993 }\n  dtype: { type: "dtype?"',
    );
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, '9007199254740993')}: error: integer 9007199254740993 is beyond what a number holds ` +
        'exactly (±(2^53 − 1) = ±9007199254740991); it would read as 9007199254740992\n' +
        '  hint: write an integer within ±9007199254740991 (a float is written with a decimal point or exponent)',
    ]);
  });

  it('refuses an int default of 1e20 (an integral float outside what an int64 holds exactly)', () => {
    const text = edit(
      CUMSUM,
      '  dtype: { type: "dtype?"',
      '  k: { type: int, default: 1e20 }\n  dtype: { type: "dtype?"',
    );
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, '1e20')}: error: default of 'k' (int) is 100000000000000000000, outside the integers ` +
        'the runtime holds exactly, ±(2^53 − 1) = ±9007199254740991\n' +
        "  hint: give 'k' an integer within ±9007199254740991",
    ]);
  });

  it('refuses a test grid value of an int arg beyond ±(2^53 − 1)', () => {
    const text = edit(CUMSUM, 'grid: { axis: [null, 0, -1]', 'grid: { axis: [null, 0, -1, -1.0e16]');
    const errors = errorsWith({ [CUMSUM]: text });
    expect(errors).toContain(
      `${where(CUMSUM, text, '-1.0e16')}: error: test grid value of 'axis' (int?) is -10000000000000000, outside the ` +
        'integers the runtime holds exactly, ±(2^53 − 1) = ±9007199254740991\n' +
        "  hint: give 'axis' an integer within ±9007199254740991",
    );
  });

  it('refuses an int8 input whose test domain is [0, 300]', () => {
    const text = edit(BITWISE_NOT, 'dtypes: [int32, int64, int8, uint8]', 'dtypes: [int32, int64]').replace(
      'domain: [-300, 300]',
      'domain: [-300, 300]\n  inputs: { x: { dtype: int8, domain: [0, 300] } }',
    );
    expect(errorsWith({ [BITWISE_NOT]: text })).toEqual([
      `${where(BITWISE_NOT, text, '[0, 300]')}: error: test domain [0, 300] of 'x' does not fit int8, whose values are ` +
        '-128 to 127\n' +
        "  hint: narrow the domain to within [-128, 127], or test 'x' in a wider dtype",
    ]);
  });

  it('refuses a domain for the only tested dtype that it does not fit, and keeps a shared one that wraps on purpose', () => {
    const only = edit(BITWISE_NOT, 'dtypes: [int32, int64, int8, uint8]', 'dtypes: [uint8]');
    expect(errorsWith({ [BITWISE_NOT]: only })).toEqual([
      `${where(BITWISE_NOT, only, '[-300, 300]')}: error: test domain [-300, 300] of 'x' does not fit uint8, whose ` +
        'values are 0 to 255\n' +
        "  hint: narrow the domain to within [0, 255], or test 'x' in a wider dtype",
    ]);
    expect(errorsWith({ [BITWISE_NOT]: spec(BITWISE_NOT) })).toEqual([]);
  });
});

describe("the generated NaN/±inf case's arg sets (tests.non_finite_cases)", () => {
  const NF = 'non_finite_cases: [{ k: 1 }';

  it('refuses an arg set naming an arg the op does not have, with the nearest name', () => {
    const text = edit(TOPK, NF, 'non_finite_cases: [{ kk: 1 }');
    expect(errorsWith({ [TOPK]: text })).toEqual([
      `${where(TOPK, text, 'kk')}: error: tests.non_finite_cases names 'kk', which is not a non-tensor arg\n` +
        "  hint: did you mean 'k'?",
    ]);
  });

  it("refuses a value that does not fit the arg's type", () => {
    const text = edit(CUMSUM, 'non_finite_cases: [{ axis: 0 }', 'non_finite_cases: [{ axis: zero }');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, 'zero')}: error: tests.non_finite_cases[0] gives 'axis' "zero", which does not fit int?\n` +
        "  hint: give 'axis' a value of type int?, as a call of cumsum takes it",
    ]);
  });

  it("refuses a value that fails the arg's check, and an int beyond what the runtime holds exactly", () => {
    const negative = edit(TOPK, NF, 'non_finite_cases: [{ k: -1 }');
    expect(errorsWith({ [TOPK]: negative })).toEqual([
      `${where(TOPK, negative, '-1 }, { k: 2 }')}: error: tests.non_finite_cases[0] value of 'k' fails its check: -1 is negative\n` +
        '  hint: a call that must fail belongs under tests.errors',
    ]);
    const huge = edit(TOPK, NF, 'non_finite_cases: [{ k: 1.0e16 }');
    expect(errorsWith({ [TOPK]: huge })).toEqual([
      `${where(TOPK, huge, '1.0e16')}: error: tests.non_finite_cases[0] value of 'k' (int) is 10000000000000000, ` +
        'outside the integers the runtime holds exactly, ±(2^53 − 1) = ±9007199254740991\n' +
        "  hint: give 'k' an integer within ±9007199254740991",
    ]);
  });

  it("refuses an axis the case's 1-D rows do not have", () => {
    const text = edit(CUMSUM, 'non_finite_cases: [{ axis: 0 }', 'non_finite_cases: [{ axis: 1 }');
    expect(errorsWith({ [CUMSUM]: text })).toEqual([
      `${where(CUMSUM, text, '{ axis: 1 }')}: error: tests.non_finite_cases[0] does not fit cumsum on the case's 1-D ` +
        "rows: axis 1 is out of range for 'x' of rank 1\n" +
        '  hint: the rows are 1-D: an axis is 0 or -1 (or null where the op takes it)',
    ]);
  });

  it('refuses arg sets that would run nothing: no NumPy reference of the ONNX op, float32 left out', () => {
    const exp = edit(EXP, 'shapes: [[5], [2, 3, 4]]', 'shapes: [[5], [2, 3, 4]]\n  non_finite_cases: [{}]');
    const errors = errorsWith({ [EXP]: exp });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^${where(EXP, exp, 'non_finite_cases')}: error: tests.non_finite_cases would run nothing: no NumPy ` +
          'reference of ONNX Exp is written out \\(generators/src/testing/numpy-reference.ts\\)\n' +
          '  hint: add one for Exp there, or remove tests.non_finite_cases; references: ReduceSum, ',
      ),
    );
    const f64 = edit(SOFTMAX, 'grid: { axis: [-4, -1, 0, 3] }', 'grid: { axis: [-4, -1, 0, 3] }\n  dtypes: [float64]');
    expect(errorsWith({ [SOFTMAX]: f64 })).toEqual([
      `${where(SOFTMAX, f64, 'non_finite_cases')}: error: tests.non_finite_cases would run nothing: its rows are ` +
        'float32 and tests.dtypes [float64] leaves float32 out\n' +
        '  hint: add float32 to tests.dtypes',
    ]);
  });

  it('refuses a list that is not a list of arg sets (the JSON Schema)', () => {
    const mapping = edit(SOFTMAX, 'non_finite_cases: [{ axis: 0 }]', 'non_finite_cases: { axis: 0 }');
    expect(allErrorsWith({ [SOFTMAX]: mapping }).filter((e) => e.startsWith(SOFTMAX))).toEqual([
      `${where(SOFTMAX, mapping, '{ axis: 0 }')}: error: 'tests.non_finite_cases' must be array, got a mapping`,
    ]);
    const number = edit(SOFTMAX, 'non_finite_cases: [{ axis: 0 }]', 'non_finite_cases: [0]');
    expect(allErrorsWith({ [SOFTMAX]: number }).filter((e) => e.startsWith(SOFTMAX))).toEqual([
      `${where(SOFTMAX, number, '0]')}: error: 'tests.non_finite_cases.0' must be object, got number 0`,
    ]);
  });
});

describe('a refused run', () => {
  it('names each refusal and writes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'raf-op-spec-checks-'));
    try {
      for (const p of [
        EXP,
        SOFTMAX,
        'specs/nn/softmax_dx.yaml',
        'specs/op-ids.lock.json',
        '.prettierrc.json',
        'package.json',
      ])
        cpSync(new URL(p, REPO), join(root, p));
      const softmax = edit(SOFTMAX, 'fusion: opaque', 'fusion: elemwise').replace(
        'non_finite_cases: [{ axis: 0 }]',
        'non_finite_cases: [{ axis: 2 }]',
      );
      const exp = edit(EXP, 'args:\n', 'args:\n  k: { type: int, default: 9007199254740993 }\n');
      writeFileSync(join(root, SOFTMAX), softmax);
      writeFileSync(join(root, EXP), exp);
      const error = await generate(root).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SpecErrors);
      const printed = (error as SpecErrors).errors.map(String);
      expect(printed.some((e) => e.startsWith(`${where(SOFTMAX, softmax, 'elemwise')}: error: fusion: elemwise`))).toBe(
        true,
      );
      expect(printed.some((e) => e.startsWith(`${where(EXP, exp, '9007199254740993')}: error: integer`))).toBe(true);
      expect(
        printed.some((e) =>
          e.startsWith(`${where(SOFTMAX, softmax, '{ axis: 2 }')}: error: tests.non_finite_cases[0] does not fit`),
        ),
      ).toBe(true);
      expect(printed.join('\n')).not.toMatch(/\n\s+at /);
      expect(existsSync(join(root, 'runtime/src/generated'))).toBe(false);
      expect(existsSync(join(root, 'test/generated'))).toBe(false);
      expect(readFileSync(join(root, 'specs/op-ids.lock.json'), 'utf8')).toBe(
        readFileSync(new URL('specs/op-ids.lock.json', REPO), 'utf8'),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
