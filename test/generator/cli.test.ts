// `npm run gen` as users run it: exit codes and messages of --check, --dry-run and a broken spec.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
const CLI = join(REPO, 'generators/src/cli.ts');
const TSX = join(REPO, 'node_modules/.bin/tsx');
let root: string;

function gen(...args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync(TSX, [CLI, 'gen', '--root', root, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: err.stdout + err.stderr };
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'raf-op-cli-'));
  for (const p of ['specs', 'runtime/src', 'test/generated', 'docs', '.prettierrc.json', 'package.json']) {
    cpSync(join(REPO, p), join(root, p), { recursive: true });
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('raf-op gen', () => {
  it('--check passes right after a generation', () => {
    expect(gen().code).toBe(0);
    const r = gen('--check');
    expect(r.code).toBe(0);
    // The run just recorded the tree as matching the specs, so the check takes the no-op path.
    expect(r.out).toMatch(/raf-op gen --check: up to date \(\d+ ops, \d+ files\)/);
  });

  it('--check fails listing stale and extra files and says how to fix them; --dry-run lists without failing', () => {
    const file = join(root, 'runtime/src/generated/api/exp.ts');
    const original = readFileSync(file, 'utf8');
    appendFileSync(file, '// hand edit\n');
    writeFileSync(join(root, 'test/generated/ghost.test.ts'), '// no spec\n');
    const check = gen('--check');
    expect(check.code).toBe(1);
    expect(check.out).toContain('stale    runtime/src/generated/api/exp.ts');
    expect(check.out).toContain('extra    test/generated/ghost.test.ts');
    expect(check.out).toContain('Fix with: npm run gen');
    const dry = gen('--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('stale    runtime/src/generated/api/exp.ts');
    expect(readFileSync(file, 'utf8')).toBe(original + '// hand edit\n');
    expect(gen().code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('refuses a broken spec with file:line:col and writes nothing', () => {
    const spec = join(root, 'specs/math/exp.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('fusion: elemwise', 'fusion: elementwise'));
    const before = readFileSync(join(root, 'runtime/src/generated/passes/exp.ts'), 'utf8');
    const r = gen();
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /specs\/math\/exp\.yaml:\d+:9: error: 'fusion' is 'elementwise', which is not allowed\n  hint: did you mean 'elemwise'\?/,
    );
    expect(r.out).toContain('nothing was written');
    expect(readFileSync(join(root, 'runtime/src/generated/passes/exp.ts'), 'utf8')).toBe(before);
  });
});
