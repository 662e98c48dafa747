// The tooling around gen on inputs a person leaves behind: a copied checkout, ops deleted or changed under the
// op-id lock, and specs at the edges of what is valid. Each case asserts what is refused or reported, and where.

import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../generators/src/generate.ts';
import { REPO, runCli, smallRepo } from '../generator/robust-repo.ts';

const temps: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), `raf-op-${prefix}-`));
  temps.push(d);
  return d;
};
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the cached generator bundle is keyed by the checkout it serves', () => {
  it('a cp -a copy builds and runs its own bundle, from its own sources, and leaves the original cache alone', () => {
    // A minimal checkout: bin/run.mjs, an entry that prints where it runs from, and esbuild in node_modules.
    const base = tempDir('bundle');
    const original = join(base, 'original');
    mkdirSync(join(original, 'generators/bin'), { recursive: true });
    mkdirSync(join(original, 'generators/src'), { recursive: true });
    mkdirSync(join(original, 'node_modules'), { recursive: true });
    cpSync(join(REPO, 'generators/bin/run.mjs'), join(original, 'generators/bin/run.mjs'));
    symlinkSync(join(REPO, 'node_modules/esbuild'), join(original, 'node_modules/esbuild'));
    const entry = (tag: string) =>
      `console.log(${JSON.stringify(tag)}, new URL('.', import.meta.url).pathname, process.argv.slice(2).join(' '));\n`;
    writeFileSync(join(original, 'generators/src/cli.ts'), entry('original'));
    const run = (root: string) =>
      spawnSync(process.execPath, [join(root, 'generators/bin/run.mjs'), 'cli', 'gen', '--x'], { encoding: 'utf8' });
    const first = run(original);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`original ${join(original, 'generators/src')}/ gen --x\n`);
    const bundles = () => readdirSync(join(original, 'node_modules/.cache/raf-op/bin')).sort();
    const originalBundles = bundles();
    expect(originalBundles).toHaveLength(1);

    const copy = join(base, 'copy');
    expect(spawnSync('cp', ['-a', original, copy]).status).toBe(0);
    // The copy's sources hash the same as the original's: it still runs from its own paths, not the baked ones.
    expect(run(copy).stdout).toBe(`original ${join(copy, 'generators/src')}/ gen --x\n`);
    writeFileSync(join(copy, 'generators/src/cli.ts'), entry('copy'));
    expect(run(copy).stdout).toBe(`copy ${join(copy, 'generators/src')}/ gen --x\n`);
    expect(bundles()).toEqual(originalBundles);
    expect(run(original).stdout).toBe(`original ${join(original, 'generators/src')}/ gen --x\n`);
  });
});

const SCALE =
  'op: scale\ndoc: x times k.\nargs:\n  x: { type: Tensor }\n  k: { type: float, default: 2 }\nout: same(x)\ngrad: custom\ndialects: { cpu: 10 }\n';
const lockOps = (root: string) =>
  Object.keys((JSON.parse(readFileSync(join(root, 'specs/op-ids.lock.json'), 'utf8')) as { ops: object }).ops).sort();
const git = (root: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
};

describe('deleted ops: the op-id lock and their hand files follow', () => {
  it('drops the id of an op that never reached a commit (and --check reports the stale lock); keeps committed ones', async () => {
    const root = smallRepo('opids');
    temps.push(root);
    await generate(root);
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'base');
    expect(lockOps(root)).toEqual(['exp', 'multiply', 'softmax', 'softmax_dx']);
    // An op added and generated, then reverted before any commit: its id was never handed out.
    writeFileSync(join(root, 'specs/math/scale.yaml'), SCALE);
    await generate(root);
    expect(lockOps(root)).toContain('scale');
    rmSync(join(root, 'specs/math/scale.yaml'));
    const check = await generate(root, { check: true });
    expect(check.changes.map((c) => `${c.action} ${c.path}`)).toContain('update specs/op-ids.lock.json');
    const cli = await runCli(root, ['--check']);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain('stale    specs/op-ids.lock.json');
    await generate(root);
    expect(lockOps(root)).toEqual(['exp', 'multiply', 'softmax', 'softmax_dx']);
    // A committed op that is deleted keeps its id (retired: a saved graph may hold it).
    rmSync(join(root, 'specs/math/exp.yaml'));
    await generate(root);
    expect(lockOps(root)).toEqual(['exp', 'multiply', 'softmax', 'softmax_dx']);
    expect((await generate(root, { check: true })).changes).toEqual([]);
  }, 120_000);

  it("reports a deleted op's hand-written gradient and kernel by name (a warning; --check fails), never deletes them", async () => {
    const root = smallRepo('handfiles');
    temps.push(root);
    writeFileSync(join(root, 'specs/math/scale.yaml'), SCALE);
    await generate(root);
    const grad = 'runtime/src/ops/scale.grad.ts';
    const kernel = 'runtime/src/dialects/cpu/kernels/scale.ts';
    expect(existsSync(join(root, grad)) && existsSync(join(root, kernel))).toBe(true);
    rmSync(join(root, 'specs/math/scale.yaml'));
    const run = await runCli(root);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `${kernel}:1:1: warning: no spec defines op 'scale', but its hand-written files ${kernel}, ${grad} are still here`,
    );
    expect(run.stderr).toContain('hint: the op was deleted or renamed');
    expect(existsSync(join(root, grad)) && existsSync(join(root, kernel))).toBe(true);
    const check = await runCli(root, ['--check']);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`${kernel}:1:1: error: no spec defines op 'scale'`);
    rmSync(join(root, grad));
    rmSync(join(root, kernel));
    // Gone once the files are (the small root's stub kernels of softmax still ignore 'axis': not this test's business).
    expect((await runCli(root, ['--check'])).stderr).not.toContain("op 'scale'");
  }, 120_000);
});

describe('valid specs at the edges', () => {
  it('a spec with a Tensor[] arg and no tests: block is accepted; its default case gives the list two shapes', async () => {
    const root = smallRepo('listarg');
    temps.push(root);
    const spec = readFileSync(join(REPO, 'specs/tensor/concatenate.yaml'), 'utf8')
      .replace('op: concatenate', 'op: my_concat')
      .replace(/^(relay|onnx): .*\n/gm, '')
      .replace(/^tests:\n(?: .*\n)*/m, '');
    expect(spec).not.toContain('tests:');
    mkdirSync(join(root, 'specs/tensor'), { recursive: true });
    writeFileSync(join(root, 'specs/tensor/my_concat.yaml'), spec);
    const result = await generate(root);
    expect(result.model.ops.map((o) => o.name)).toContain('my_concat');
    const op = result.model.ops.find((o) => o.name === 'my_concat')!;
    expect(op.tests.shapes).toEqual([
      [
        [
          [3, 4],
          [3, 4],
        ],
      ],
    ]);
    expect(existsSync(join(root, 'test/generated/my_concat.test.ts'))).toBe(true);
  });
});

describe("opcheck's attribute check on inputs where two values name the same axis", () => {
  it('softmax of a 1-D tensor: axis -1 and 0 are the same axis, not an ignored attr; on 2-D the axis still varies', async () => {
    const { opcheck } = await import('../../runtime/src/extend.ts');
    const { tensor } = await import('../../runtime/src/index.ts');
    const oneD = tensor([0.5, -1, 2, 0.25], { dtype: 'float64' });
    const report = await opcheck('softmax', [{ args: [oneD, -1] }], { dialects: ['cpu'], throws: false });
    const attr = report.results.find((r) => r.check === 'attr')!;
    expect(attr.ok).toBe(true);
    expect(attr.message).toContain('0 (the same axis here)');
    expect(report.failures).toEqual([]);
    const twoD = tensor(
      [
        [0.5, -1],
        [2, 0.25],
      ],
      { dtype: 'float64' },
    );
    const varied = await opcheck('softmax', [{ args: [twoD, -1] }], { dialects: ['cpu'], throws: false });
    expect(varied.results.find((r) => r.check === 'attr')!.message).toMatch(/axis = 0 changes the result/);
  }, 120_000);
});

/** One command of the raf-op CLI (`generators/src/cli.ts`) or the scaffold's (`scaffold/cli.ts`), in its own process. */
function command(entry: 'cli' | 'scaffold', args: readonly string[], cwd: string) {
  const file = entry === 'cli' ? 'generators/src/cli.ts' : 'generators/src/scaffold/cli.ts';
  const tsx = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
  return spawnSync(process.execPath, ['--import', tsx, join(REPO, file), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });
}
const STACK = /^\s+at .*(\.ts|\.js|\.mjs|node:)/m;

describe('raf-op diff and breaking before the first commit, and a bad ref', () => {
  it('compares with an empty base outside git and in a repository with no commit; a bad ref is a message', async () => {
    const root = smallRepo('diff0');
    temps.push(root);
    await generate(root);
    const outside = command('cli', ['diff', '--summary', '--root', root], root);
    expect(outside.stderr).not.toMatch(STACK);
    expect(outside.status).toBe(0);
    expect(outside.stdout).toContain('## raf-op diff: `HEAD` (no commit yet: an empty base) → working tree');
    expect(outside.stdout).toMatch(/4 ops changed \(4 added, 0 removed, 0 changed\)/);
    git(root, 'init', '-q');
    const unborn = command('cli', ['diff', '--summary', '--root', root], root);
    expect(unborn.status).toBe(0);
    expect(unborn.stdout).toContain('(no commit yet: an empty base)');
    const breaking = command('cli', ['breaking', '--root', root], root);
    expect(breaking.status).toBe(0);
    expect(breaking.stdout).toContain('No breaking changes.');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'base');
    const bad = command('cli', ['diff', '--against', 'no-such-ref', '--root', root], root);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(
      `raf-op diff: 'no-such-ref' is not a commit in ${root}\n` +
        '  hint: name a branch, tag or commit with --against (git log --oneline lists commits)\n',
    );
    const committed = command('cli', ['diff', '--summary', '--root', root], root);
    expect(committed.stdout).toContain('No spec changes.');
  }, 120_000);
});

describe('scaffold and init flags: refusals are messages, --resume keeps every flag', () => {
  it('a refused --fusion names the flag without a stack trace; --resume keeps --shapes given after it', () => {
    const root = smallRepo('resume');
    temps.push(root);
    // The repository layout the scaffold recognizes: specs/ and the spec schema.
    mkdirSync(join(root, 'generators/schema'), { recursive: true });
    cpSync(join(REPO, 'generators/schema/op-spec.schema.json'), join(root, 'generators/schema/op-spec.schema.json'));
    const refused = command(
      'scaffold',
      ['my_sq', '--compute', 'x * x', '--fusion', 'sideways', '--shapes', '[[2, 5]]', '--yes'],
      root,
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--fusion');
    expect(refused.stderr).toContain('--resume');
    expect(refused.stderr).not.toMatch(STACK);
    expect(existsSync(join(root, 'specs/math/my_sq.yaml'))).toBe(false);
    const kept = JSON.parse(readFileSync(join(root, '.raf-op/scaffold-answers.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(kept).toMatchObject({ NAME: 'my_sq', compute: 'x * x', shapes: '[[2, 5]]' });
    const resumed = command('scaffold', ['my_sq', '--fusion', 'elemwise', '--resume', '--yes'], root);
    expect(resumed.stderr).not.toMatch(STACK);
    expect(resumed.status).toBe(0);
    const spec = readFileSync(join(root, 'specs/math/my_sq.yaml'), 'utf8');
    expect(spec).toMatch(/shapes:.*\[2, 5\]/s);
    expect(spec).toContain('fusion: elemwise');
  }, 120_000);

  it('raf-op init: an unknown flag, a --from folder without the tarballs, and --from with them', () => {
    const base = tempDir('initflags');
    const unknown = command('cli', ['init', 'my-ops', '--bogus'], base);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^raf-op init: Unknown option '--bogus'/);
    expect(unknown.stderr).toContain('--from FOLDER');
    expect(unknown.stderr).not.toMatch(STACK);
    mkdirSync(join(base, 'packs'));
    const empty = command('cli', ['init', 'my-ops', '--from', 'packs'], base);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('--from packs: expected one raf-op-runtime-*.tgz (@raf-op/runtime), found none');
    expect(existsSync(join(base, 'my-ops'))).toBe(false);
    writeFileSync(join(base, 'packs/raf-op-runtime-0.1.0.tgz'), '');
    writeFileSync(join(base, 'packs/generator-raf-op-0.1.0.tgz'), '');
    const ok = command('cli', ['init', 'my-ops', '--from', 'packs'], base);
    expect(ok.stderr).not.toMatch(STACK);
    expect(ok.status).toBe(0);
    const pkg = JSON.parse(readFileSync(join(base, 'my-ops/package.json'), 'utf8'));
    expect(pkg.dependencies['@raf-op/runtime']).toBe('file:../packs/raf-op-runtime-0.1.0.tgz');
    expect(pkg.devDependencies['generator-raf-op']).toBe('file:../packs/generator-raf-op-0.1.0.tgz');
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json');
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
  }, 120_000);
});
