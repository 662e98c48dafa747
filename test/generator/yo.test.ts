// `yo raf-op` run like a generator with yeoman-test, into a temporary copy of the repository:
// the files it writes, the spec's text, refusals that leave the tree alone, and the new ops' own tests.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import helpers from 'yeoman-test';

const REPO = resolve(import.meta.dirname, '../..');
const APP = join(REPO, 'generators/app/index.js');
const HARDSWISH = 'x * clamp(x + 3, 0, 6) / 6';
// A scaffold plans every generated file (prettier included); on a loaded 2-core machine that takes a while.
const SLOW = 240_000;

let root: string;

/** The repository without .git and node_modules (linked back), so the generator writes into a throwaway tree. */
function copyRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'raf-op-yo-'));
  // Built packages (dist/) and the unpacked lavapipe are not part of a checkout's sources.
  cpSync(REPO, dir, {
    recursive: true,
    filter: (src) => !/^(node_modules|\.git|\.lavapipe|runtime\/dist|generators\/dist)$/.test(relative(REPO, src)),
  });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Path → content hash of every file under the given folders. */
function treeHashes(dir: string, folders: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), createHash('sha1').update(readFileSync(p)).digest('hex'));
    }
  };
  for (const f of folders) if (existsSync(join(dir, f))) walk(join(dir, f));
  return out;
}

const TRACKED = ['specs', 'runtime/src', 'test/generated', 'docs'];

function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

function scaffold(args: string[], options: Record<string, unknown>, answers: Record<string, string> = {}) {
  // yeoman-test passes force: true unless told otherwise; --force must stay explicit here as on the command line.
  return helpers
    .run(APP, { tmpdir: false, cwd: root, namespace: 'raf-op:app' })
    .withArguments(args)
    .withOptions({ force: false, ...options } as Record<string, unknown>)
    .withAnswers(answers);
}

beforeAll(() => {
  root = copyRepo();
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('yo raf-op', () => {
  it('refuses names that are not identifiers, escape specs/, or shadow an op, and writes nothing', async () => {
    const before = treeHashes(root, TRACKED);
    await expect(scaffold(['../evil'], { yes: true })).rejects.toThrow(
      /op name '\.\.\/evil' is a path; it would write outside specs\//,
    );
    await expect(scaffold(['Hard-Swish'], { yes: true })).rejects.toThrow(/not a lower_snake_case identifier/);
    await expect(scaffold(['delete'], { yes: true })).rejects.toThrow(/'delete' is a reserved word/);
    await expect(scaffold(['softmax'], { yes: true })).rejects.toThrow(
      /op 'softmax' already exists \(specs\/nn\/softmax\.yaml\)[\s\S]*--force/,
    );
    await expect(scaffold(['ok_name'], { yes: true, category: '../..' })).rejects.toThrow(
      /category name '\.\.\/\.\.' is a path/,
    );
    expect(changedFiles(before, treeHashes(root, TRACKED))).toEqual([]);
  });

  it(
    'refuses an answer the spec validator rejects, with file:line:col, and writes nothing',
    async () => {
      const before = treeHashes(root, ['specs', 'runtime/src/ops']);
      await expect(
        scaffold(['scan_bad'], { yes: true, category: 'tensor', args: 'x: Tensor, axis: int = 0 check axis(y)' }),
      ).rejects.toThrow(
        /specs\/tensor\/scan_bad\.yaml:\d+:\d+: error: check axis\(y\) names 'y', which is not a tensor arg/,
      );
      expect(changedFiles(before, treeHashes(root, ['specs', 'runtime/src/ops']))).toEqual([]);
    },
    SLOW,
  );

  it(
    'scaffolds a compute op from flags with --yes: spec, kernel, derived gradient and tests, no stubs',
    async () => {
      const before = treeHashes(root, TRACKED);
      // The library has its own hardswish (ONNX HardSwish), so the scaffolded copy is named hswish.
      await scaffold(['hswish'], { compute: HARDSWISH, yes: true });
      const changed = changedFiles(before, treeHashes(root, TRACKED));
      // Only the new op's files (shared indexes aside; a stale copy may refresh others too).
      expect(changed.filter((p) => p.includes('hswish'))).toMatchSnapshot();
      expect(changed).toEqual(
        expect.arrayContaining(['runtime/src/generated/index.ts', 'runtime/src/generated/ops.ts']),
      );
      expect(changed.filter((p) => p.startsWith('runtime/src/ops/') || p.includes('/kernels/'))).toEqual([]);
      expect(readFileSync(join(root, 'specs/math/hswish.yaml'), 'utf8')).toMatchSnapshot();
    },
    SLOW,
  );

  it(
    'scaffolds a cumulative product from prompts: the spec plus kernel and gradient stubs with the exact signatures',
    async () => {
      const result = await scaffold(
        ['cumulative_product'],
        {},
        {
          compute: '',
          schema: '',
          category: 'tensor',
          doc: 'Cumulative product along an axis; exclusive leaves each element out of its own product.',
          args: 'x: Tensor, axis: int = 0 check axis(x), exclusive: bool = false',
          gradKind: 'custom',
          onnx: 'CumProd opset=26 inputs=x,axis',
          relay: 'cumprod',
        },
      );
      // Every question was asked (nothing came from flags), in order.
      expect(result.askedQuestions.map((q) => q.name)).toEqual([
        'compute',
        'schema',
        'category',
        'doc',
        'args',
        'out',
        'gradKind',
        'fusion',
        'cast',
        'relay',
        'onnx',
        'dialects',
        'shapes',
        'grid',
        'domain',
      ]);
      expect(readFileSync(join(root, 'specs/tensor/cumulative_product.yaml'), 'utf8')).toMatchSnapshot();
      const kernel = readFileSync(join(root, 'runtime/src/dialects/cpu/kernels/cumulative_product.ts'), 'utf8');
      expect(kernel).toContain(
        'export const cumulativeProductCpu: CumulativeProductKernel = ({ x }, { axis, exclusive }, out) => {',
      );
      expect(kernel).toContain('not implemented: raf.op.cpu.cumulative_product');
      const grad = readFileSync(join(root, 'runtime/src/ops/cumulative_product.grad.ts'), 'utf8');
      expect(grad).toMatch(
        /export function cumulativeProductGradImpl\(\{\s*x,\s*dy,\s*axis,\s*exclusive,?\s*\}: CumulativeProductGradContext\): CumulativeProductGradResult/,
      );
    },
    SLOW,
  );

  it(
    "runs the new ops' generated tests: hswish passes (gradcheck included), the stubbed op fails with its stub's message",
    () => {
      const run = spawnSync(
        'npx',
        [
          'vitest',
          'run',
          '--root',
          root,
          '--reporter',
          'json',
          'test/generated/hswish.test.ts',
          'test/generated/hswish_dx.test.ts',
          'test/generated/cumulative_product.test.ts',
        ],
        { cwd: root, encoding: 'utf8', timeout: SLOW },
      );
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        testResults: {
          name: string;
          assertionResults: { title: string; status: string; failureMessages: string[]; ancestorTitles: string[] }[];
        }[];
      };
      const byFile = (name: string) => report.testResults.find((r) => r.name.endsWith(`/${name}`))!.assertionResults;
      const hardswish = byFile('hswish.test.ts');
      // Skipped only where onnxruntime has no kernel for the dtype (the ort dialect's float64 cases); nothing fails.
      expect(hardswish.filter((t) => t.status === 'failed')).toEqual([]);
      expect(hardswish.filter((t) => t.status === 'skipped' && !t.ancestorTitles.includes('dialect ort'))).toEqual([]);
      expect(hardswish.some((t) => t.title.startsWith('gradcheck'))).toBe(true);
      expect(byFile('hswish_dx.test.ts').every((t) => t.status === 'passed')).toBe(true);
      const cum = byFile('cumulative_product.test.ts');
      const forward = cum.filter((t) => t.title.startsWith('forward'));
      expect(forward.length).toBeGreaterThan(0);
      for (const t of forward) {
        expect(t.status).toBe('failed');
        expect(t.failureMessages.join('\n')).toContain('not implemented: raf.op.cpu.cumulative_product');
      }
    },
    SLOW,
  );
});
