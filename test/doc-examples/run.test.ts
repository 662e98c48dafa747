// Runs every command example of README.md and docs/*.md that the lists of test/docs/examples.ts give to a test
// (HERE: in this checkout, as written or reduced; COPY: in a throwaway copy of the repository). Minutes of work on a
// loaded machine, so it lives outside test/docs; `npm test` runs it with everything else.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { all, blockKey, COPY, COPY_ALONE, HERE, inCopy } from '../docs/examples.ts';
import { ROOT, type Command } from '../docs/shell.ts';

const env = { ...process.env, NO_UPDATE_NOTIFIER: '1', YO_NO_UPDATE_NOTIFIER: '1', FORCE_COLOR: '0' };
const benchOut = mkdtempSync(join(tmpdir(), 'raf-op-docs-bench-'));
afterAll(() => rmSync(benchOut, { recursive: true, force: true }));

/** Runs a shell command line, resolving to its exit status and output (async, so runs can overlap). */
function sh(line: string, cwd: string): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], {
      cwd,
      env: { ...env, RAF_BENCH_RESULTS: benchOut },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (status) => resolve({ status, out }));
  });
}

const hasOriginMain =
  spawnSync('git', ['rev-parse', '--verify', '-q', 'origin/main'], { cwd: ROOT, encoding: 'utf8' }).status === 0;

/** A clone with no `origin` (CI's checkout, a fresh clone of a clone) compares with HEAD instead. */
const runnable = (text: string) => (hasOriginMain ? text : text.replaceAll('origin/main', 'HEAD'));

const MINUTES = 10 * 60_000;

describe.concurrent('HERE: run in this checkout', () => {
  const forms = new Map<string, string[]>();
  for (const [text, how] of Object.entries(HERE))
    forms.set(how.run ?? text, [...(forms.get(how.run ?? text) ?? []), text]);
  for (const [form, examples] of forms)
    it(`${form}${form === examples[0] ? '' : `  (for ${examples.join(' ; ')})`}`, { timeout: MINUTES }, async () => {
      const r = await sh(runnable(form), ROOT);
      expect(r.status, `${form} exited ${r.status}:\n${r.out.slice(-4000)}`).toBe(0);
      expect(r.out).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);
    });
});

/**
 * Runs commands in order in a fresh copy of the checkout (uncommitted edits too; no .git or build output;
 * node_modules linked), beside a link to ../shared as the checkout has it (ONNX's backend data).
 */
async function runInCopy(cmds: readonly Command[]): Promise<void> {
  const top = mkdtempSync(join(tmpdir(), 'raf-op-docs-'));
  const dir = join(top, 'raf-op');
  try {
    mkdirSync(dir);
    const excludes = ['node_modules', '.git', '.lavapipe', 'runtime/dist', 'generators/dist', 'bench/results'];
    const tar = spawnSync(
      'bash',
      ['-c', `tar ${excludes.map((e) => `--exclude=./${e}`).join(' ')} -cf - . | tar -xf - -C '${dir}'`],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(tar.status, tar.stderr).toBe(0);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    if (existsSync(join(ROOT, '../shared'))) symlinkSync(join(ROOT, '../shared'), join(top, 'shared'), 'dir');
    for (const c of cmds) {
      const line = inCopy(c);
      const r = await sh(line, dir);
      expect(r.status, `${c.page}:${c.line}: ${line} exited ${r.status}:\n${r.out.slice(-4000)}`).toBe(0);
    }
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}

describe('COPY: commands that write into the tree, in a copy of the repository', () => {
  for (const key of COPY) {
    const cmds = all.filter((c) => blockKey(c) === key);
    it(`${key}: ${cmds.map((c) => c.text).join(' ; ')}`, { timeout: MINUTES }, () => runInCopy(cmds));
  }
  for (const text of COPY_ALONE) it(text, { timeout: MINUTES }, () => runInCopy([all.find((c) => c.text === text)!]));
});
