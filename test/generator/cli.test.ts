// `npm run gen` as users run it: exit codes and messages of --check, --dry-run and a broken spec.

import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raf } from '../support/raf-cli.ts';

const REPO = join(import.meta.dirname, '../..');
let root: string;

/** `raf-op gen --root <tree> ...args`, in-process (test/support/raf-cli.ts); the executable is a two-line wrapper. */
const gen = (...args: string[]) => raf('gen', '--root', root, ...args);

/**
 * Specs of the temporary tree: exp and multiply (exp's gradient formula calls it). The CLI's exit codes and messages
 * do not depend on how many ops there are, and two ops generate in a fraction of the time of the whole library
 * (test/generator/write.test.ts regenerates that, in-process).
 */
const SPECS = ['specs/math/exp.yaml', 'specs/math/multiply.yaml', 'specs/op-ids.lock.json'];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'raf-op-cli-'));
  for (const p of [...SPECS, '.prettierrc.json', 'package.json']) cpSync(join(REPO, p), join(root, p));
  // The hand-written runtime (kernels, gradients) so no stub is due; the generated files come from the first run.
  cpSync(join(REPO, 'runtime/src'), join(root, 'runtime/src'), {
    recursive: true,
    filter: (src) => !src.startsWith(join(REPO, 'runtime/src/generated')) && !otherOpsHandFile(src),
  });
});

/** Kernels, gradients and rules of ops this tree has no spec for: gen would report them as a deleted op's. */
function otherOpsHandFile(src: string): boolean {
  const rel = src.slice(REPO.length + 1);
  const name =
    /^runtime\/src\/dialects\/\w+\/kernels\/(\w+)\.ts$/.exec(rel)?.[1] ??
    /^runtime\/src\/ops\/(\w+)\.(?:grad|rule)\.ts$/.exec(rel)?.[1];
  return name !== undefined && !['exp', 'multiply'].includes(name);
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('raf-op gen', () => {
  it('--check passes right after a generation', async () => {
    expect((await gen()).code).toBe(0);
    const r = await gen('--check');
    expect(r.code).toBe(0);
    // The run just recorded the tree as matching the specs, so the check takes the no-op path.
    expect(r.out).toMatch(/raf-op gen --check: up to date \(\d+ ops, \d+ files\)/);
  });

  it('--check fails listing stale and extra files and says how to fix them; --dry-run lists without failing', async () => {
    const file = join(root, 'runtime/src/generated/api/exp.ts');
    const original = readFileSync(file, 'utf8');
    appendFileSync(file, '// hand edit\n');
    writeFileSync(join(root, 'test/generated/ghost.test.ts'), '// no spec\n');
    const check = await gen('--check');
    expect(check.code).toBe(1);
    expect(check.out).toContain('stale    runtime/src/generated/api/exp.ts');
    expect(check.out).toContain('extra    test/generated/ghost.test.ts');
    expect(check.out).toContain('Fix with: npm run gen');
    const dry = await gen('--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('stale    runtime/src/generated/api/exp.ts');
    expect(readFileSync(file, 'utf8')).toBe(original + '// hand edit\n');
    expect((await gen()).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('refuses a broken spec with file:line:col and writes nothing', async () => {
    const spec = join(root, 'specs/math/exp.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('fusion: elemwise', 'fusion: elementwise'));
    const before = readFileSync(join(root, 'runtime/src/generated/passes/exp.ts'), 'utf8');
    const r = await gen();
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /specs\/math\/exp\.yaml:\d+:9: error: 'fusion' is 'elementwise', which is not allowed\n  hint: did you mean 'elemwise'\?/,
    );
    expect(r.out).toContain('nothing was written');
    expect(readFileSync(join(root, 'runtime/src/generated/passes/exp.ts'), 'utf8')).toBe(before);
  });
});
