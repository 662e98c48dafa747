// Spec fuzzing (issue 18): seeded random mutations of a spec must each be refused with file:line:col and
// nothing written, or generate code that type-checks and passes its own generated tests.
//
// Default: RAF_OP_FUZZ_COUNT=24 mutations of seed 18. A larger run:
//   RAF_OP_FUZZ_SEED=7 RAF_OP_FUZZ_COUNT=300 npx vitest run test/generator/spec-fuzz.test.ts
// Every accepted mutant becomes its own op (fuzz_<n>) in one throwaway copy of the repository, so one
// generation, one type-check of the generated files and one vitest run cover all of them.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generators/src/emit/index.ts';
import { generate } from '../../generators/src/generate.ts';
import { buildModel } from '../../generators/src/spec/build.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import { loadSpecFile, loadSpecText, type RawSpec } from '../../generators/src/spec/load.ts';
import { REPO, rng, SMALL_SPECS, smallRepo, snapshot } from './robust-repo.ts';

const SEED = Number(process.env.RAF_OP_FUZZ_SEED ?? 18);
const COUNT = Number(process.env.RAF_OP_FUZZ_COUNT ?? 24);

/** The spec every mutation starts from: a generated CPU kernel, a derived gradient, ONNX as the oracle. */
const base = (name: string) => `# fuzz base
op: ${name}
doc: Leaky rectified linear unit, x for x > 0 and alpha * x otherwise.
args:
  x: { type: Tensor }
  alpha: { type: float, default: 0.01, check: 'range(0, 1)' }
compute: where(x > 0, x, alpha * x)
fusion: elemwise
cast: { rule: infer, data_args: 1 }
onnx: { op: LeakyRelu, attrs: { alpha: alpha } }
dialects: { cpu: 10 }
tests:
  shapes: [[5], [2, 3, 4]]
  grid: { alpha: [0.01, 0.2] }
`;

const NASTY = ['*/', '`', '${x}', '\\', "'", '"', '\u2028', '|', '<br>', '\t', 'é', '\u0000', '\ufffe', '@param'];
type Random = () => number;
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const nasty = (r: Random) => Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(r, NASTY)).join(' text ');
const replaceLine = (text: string, start: string, line: string) =>
  text
    .split('\n')
    .map((l) => (l.startsWith(start) ? line : l))
    .join('\n');

/** One seeded mutation: a description and the mutated text (the op name line is never changed). */
const MUTATIONS: ((t: string, r: Random) => [string, string])[] = [
  (t, r) => {
    const doc = nasty(r);
    return [`doc ${JSON.stringify(doc)}`, replaceLine(t, 'doc:', `doc: ${JSON.stringify(doc)}`)];
  },
  (t, r) => {
    const v = pick(r, ['0.3', '-1', '2', '"x"', 'null', '0', '1', '1e-3', '.inf']);
    return [`default ${v}`, t.replace('default: 0.01', `default: ${v}`)];
  },
  (t, r) => {
    const v = pick(r, ['[0.5]', '["a"]', '[3]', '[-0.2, 0.1]', '[true]', '[]', '[0.01, 0.01]']);
    return [`grid ${v}`, t.replace('grid: { alpha: [0.01, 0.2] }', `grid: { alpha: ${v} }`)];
  },
  (t, r) => {
    const v = pick(r, [
      '[]',
      '[[]]',
      '[[0]]',
      '[[2, 0, 3]]',
      '[[-1]]',
      '[["a"]]',
      '[[1, 1, 1, 1, 2]]',
      '[3]',
      '[[3], 4]',
    ]);
    return [`shapes ${v}`, t.replace('shapes: [[5], [2, 3, 4]]', `shapes: ${v}`)];
  },
  (t, r) => {
    // A new compute no longer matches ONNX's LeakyRelu: drop the ONNX oracle, the compute expression is then the reference.
    const v = pick(r, ['x * alpha', 'max(x, alpha * x)', 'x +', 'y * 2', 'exp(-x * x) * alpha', 'x * x', '(x']);
    return [
      `compute ${v}`,
      replaceLine(t, 'onnx:', '').replace('compute: where(x > 0, x, alpha * x)', `compute: ${v}`),
    ];
  },
  (t, r) => {
    const lines = t.split('\n');
    const i = 2 + Math.floor(r() * (lines.length - 3));
    return [`delete line ${i + 1}`, lines.filter((_, k) => k !== i).join('\n')];
  },
  (t, r) => {
    const at =
      t.indexOf('\n', t.indexOf('op:')) + 1 + Math.floor(r() * (t.length - t.indexOf('\n', t.indexOf('op:')) - 1));
    const c = pick(r, ['\u0000', '{', '}', '[', '"', "'", ':', '\t', '&a', '*b', '#', '-', '\ufeff']);
    return [`insert ${JSON.stringify(c)} at ${at}`, t.slice(0, at) + c + t.slice(at)];
  },
  (t, r) => {
    const c = pick(r, [
      'positive',
      'nonneg',
      'axis(x)',
      'one_of(0.01, 0.2)',
      'bogus',
      "'range(0, 0.5)'",
      "'range(1, 2)'",
    ]);
    const on = pick(r, ['x', 'alpha']);
    return [
      `check ${c} on ${on}`,
      on === 'x'
        ? t.replace('x: { type: Tensor }', `x: { type: Tensor, check: ${c} }`)
        : t.replace("check: 'range(0, 1)'", `check: ${c}`),
    ];
  },
  (t, r) => {
    const v = pick(r, ['int', '"float?"', 'bool', 'string', 'dtype', 'Tensor', 'double']);
    return [`alpha type ${v}`, t.replace('alpha: { type: float,', `alpha: { type: ${v},`)];
  },
  (t, r) => {
    const v = pick(r, [
      'fusoin: opaque',
      'grad: none',
      'grad: custom',
      'relay: { op: "" }',
      'relay: { op: "nn.x\'); y(\'" }',
      'out: same(y)',
      'out: same(x)',
      'extra: 1',
    ]);
    return [`add ${v}`, t.replace('fusion: elemwise\n', `fusion: elemwise\n${v}\n`)];
  },
  (t, r) => {
    const v = pick(r, ['{ alpha: 0.5 }', '{ alpah: 0.5 }', '{ alpha: "q" }', '{ alpha: 3 }', '{}']);
    return [`case ${v}`, t.replace('  grid:', `  cases: [{ shapes: [[4]], args: ${v} }]\n  grid:`)];
  },
  (t, r) => {
    const v = pick(r, ['[0.1, 3]', '[3, 0.1]', '[1]', '["a", 1]']);
    return [`domain ${v}`, t.replace('  grid:', `  domain: ${v}\n  grid:`)];
  },
];

const t0 = performance.now();
const lap = (what: string) =>
  process.env.RAF_OP_FUZZ_TIMES && console.log(`${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const ERROR_LINE = /^(specs\/fuzz\/fuzz_\d+\.yaml):(\d+):(\d+): error: \S/;

describe('spec fuzz', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it(`${COUNT} seeded mutations (seed ${SEED}): each refused at file:line:col with nothing written, or generated, type-checked and green`, async () => {
    // The small root's specs, loaded once; each mutant joins them as specs/fuzz/fuzz_<n>.yaml.
    const repoRaws: RawSpec[] = SMALL_SPECS.map((f) => loadSpecFile(join(REPO, 'specs', f), `specs/${f}`).spec!);
    const small = smallRepo('fuzz');
    dirs.push(small);
    await generate(small);
    const smallBefore = snapshot(small);

    const random = rng(SEED);
    const accepted: { name: string; text: string; what: string; hand: boolean }[] = [];
    let refused = 0;
    for (let n = 0; n < COUNT; n++) {
      const name = `fuzz_${n}`;
      const file = `specs/fuzz/${name}.yaml`;
      let text = base(name);
      const steps = 1 + Math.floor(random() * 2);
      const what: string[] = [];
      for (let s = 0; s < steps; s++) {
        const [desc, next] = pick(random, MUTATIONS)(text, random);
        what.push(desc);
        text = next;
      }
      const label = `${name}: ${what.join('; ')}`;
      let hand = false;
      const { spec, errors: loadErrors } = loadSpecText(file, text);
      const errors = loadErrors.map(String);
      if (spec) {
        const { model, errors: semantic } = buildModel([...repoRaws, spec]);
        errors.push(...semantic.map(String));
        if (!errors.length) expect(() => emitAll(model), label).not.toThrow();
        const op = model.ops.find((o) => o.name === name);
        // A spec asking for hand-written code (grad: custom, no compute) gets stubs that throw "not implemented".
        hand =
          !!op &&
          (op.grad.kind === 'custom' ||
            op.dialects.some((d) => d.kernel === 'hand') ||
            op.out.shape.kind === 'custom' ||
            op.out.shape.kind === 'host');
      }
      if (!errors.length) {
        accepted.push({ name, text, what: label, hand });
        continue;
      }
      refused++;
      const lineCount = text.split('\n').length;
      for (const e of errors) {
        const m = ERROR_LINE.exec(e);
        expect(m, `${label}\n${e}`).not.toBeNull();
        expect(m![1], label).toBe(file);
        expect(Number(m![2]), `${label}\n${e}`).toBeLessThanOrEqual(lineCount);
        expect(Number(m![3]), `${label}\n${e}`).toBeGreaterThanOrEqual(1);
      }
      // The same spec in a generated tree: refused by gen with the same errors, and nothing written.
      mkdirSync(join(small, 'specs/fuzz'), { recursive: true });
      writeFileSync(join(small, file), text);
      const failure = await generate(small).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure, label).toBeInstanceOf(SpecErrors);
      rmSync(join(small, 'specs/fuzz'), { recursive: true });
      expect(snapshot(small), label).toEqual(smallBefore);
    }

    lap('mutations');
    // Every accepted mutant, as its own op, in one copy of the repository.
    let green = 0;
    let stubbed = 0;
    let typeErrors: string[] = [];
    const failedOps: string[] = [];
    if (accepted.length) {
      const root = mkdtempSync(join(tmpdir(), 'raf-op-fuzzrepo-'));
      dirs.push(root);
      for (const p of [
        'specs',
        'runtime',
        'test/support',
        'test/generated',
        'docs',
        'generators/src',
        'generators/schema',
        'templates',
      ]) {
        cpSync(join(REPO, p), join(root, p), { recursive: true, filter: (src) => !src.includes('node_modules') });
      }
      for (const f of ['.prettierrc.json', 'package.json', 'tsconfig.json', 'vitest.config.ts'])
        cpSync(join(REPO, f), join(root, f));
      symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
      mkdirSync(join(root, 'specs/fuzz'));
      for (const a of accepted) writeFileSync(join(root, `specs/fuzz/${a.name}.yaml`), a.text);
      lap('copy');
      const { changes } = await generate(root);
      lap('generate');
      const changedTs = changes
        .filter((c) => c.action !== 'delete' && c.path.endsWith('.ts'))
        .map((c) => join(root, c.path));
      typeErrors = typeCheck(root, changedTs);
      lap('typecheck');
      expect(typeErrors).toEqual([]);
      const report = join(root, 'fuzz-report.json');
      spawnSync(
        process.execPath,
        [
          join(REPO, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--root',
          root,
          '--reporter=json',
          // One worker sharing one module graph: the runtime is imported once for every mutant's tests.
          '--no-isolate',
          '--maxWorkers=1',
          `--outputFile=${report}`,
          'test/generated/fuzz_',
        ],
        { cwd: root, encoding: 'utf8', env: { ...process.env, RAF_OP_WEBGPU: '0' } },
      );
      lap('vitest');
      expect(existsSync(report)).toBe(true);
      const results = JSON.parse(readFileSync(report, 'utf8')) as {
        testResults: {
          name: string;
          status: string;
          assertionResults: { status: string; fullName: string; failureMessages: string[] }[];
        }[];
      };
      for (const a of accepted) {
        const file = results.testResults.find((r) => r.name.endsWith(`/test/generated/${a.name}.test.ts`));
        const passed = file?.assertionResults.filter((t) => t.status === 'passed').length ?? 0;
        const failed = file?.assertionResults.filter((t) => t.status === 'failed') ?? [];
        if (a.hand) {
          // Its generated tests run and fail only where a stub asks for the hand-written part.
          stubbed++;
          const other = failed.filter((t) => !t.failureMessages.some((m) => m.includes('not implemented:')));
          if (!file || !failed.length || other.length)
            failedOps.push(
              `${a.what}: stubs should fail with "not implemented:", got ${other.map((t) => t.fullName).join('; ') || 'no failure'}`,
            );
        } else if (file && passed > 0 && !failed.length) green++;
        else
          failedOps.push(
            `${a.what}: ${failed.map((t) => `${t.fullName}: ${t.failureMessages[0]?.split('\n')[0]}`).join('; ') || file?.status || 'no test file ran'}`,
          );
      }
    }
    console.log(
      `spec fuzz (seed ${SEED}): ${COUNT} mutations tried, ${refused} refused at file:line:col with nothing written, ${accepted.length} accepted: ${green} type-checked and green, ${stubbed} asking for hand-written code (type-checked, their tests fail only in the "not implemented" stubs)`,
    );
    expect(failedOps).toEqual([]);
    expect(refused + green + stubbed).toBe(COUNT);
  }, 600_000);
});

/** Semantic diagnostics of the given files only (their imports are read, not reported). */
function typeCheck(root: string, files: readonly string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!;
  const program = ts.createProgram({ rootNames: [...files], options: { ...config.options, noEmit: true } });
  const out: string[] = [];
  for (const f of files) {
    const sf = program.getSourceFile(f);
    if (!sf) {
      out.push(`${f}: not in the program`);
      continue;
    }
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const pos = d.start === undefined ? '' : `:${sf.getLineAndCharacterOfPosition(d.start).line + 1}`;
      out.push(`${f.slice(root.length + 1)}${pos}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return out;
}
