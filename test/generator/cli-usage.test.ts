// raf-op's command line before any work: --version, help per command, and usage errors (exit 2) that name the
// unknown command or the option the command does not take. No generation runs here, so each call is quick.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { raf } from '../support/raf-cli.ts';

const REPO = join(import.meta.dirname, '../..');

/** One call after another: the in-process runs share console. */
async function each(...calls: string[][]) {
  const out = [];
  for (const args of calls) out.push(await raf(...args));
  return out;
}

describe('raf-op usage', () => {
  it('prints the package version, the commands, and each command its own options', async () => {
    const [version, help, genHelp, diffHelp] = await each(
      ['--version'],
      ['--help'],
      ['gen', '--help'],
      ['diff', '--help'],
    );
    const pkg = JSON.parse(readFileSync(join(REPO, 'generators/package.json'), 'utf8')) as { version: string };
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    expect(help.code).toBe(0);
    for (const command of ['gen', 'diff', 'breaking']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(genHelp.code).toBe(0);
    expect(genHelp.stdout).toMatch(/^usage: raf-op gen /);
    expect(genHelp.stdout).toContain('--check');
    expect(genHelp.stdout).not.toContain('--against');
    expect(diffHelp.stdout).toMatch(/^usage: raf-op diff /);
    expect(diffHelp.stdout).not.toContain('--check');
  });

  it('refuses an unknown command, an unknown option, and an option of another command, naming each', async () => {
    const [command, option, other, positional, none] = await each(
      ['generate'],
      ['gen', '--chek'],
      ['diff', '--check'],
      ['gen', 'softmax'],
      [],
    );
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/^raf-op: unknown command 'generate'\nusage: raf-op <command>/);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^raf-op gen: Unknown option '--chek'/);
    expect(option.stderr).toContain('usage: raf-op gen ');
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^raf-op diff: Unknown option '--check'/);
    expect(positional.code).toBe(2);
    expect(positional.stderr).toMatch(/^raf-op gen: Unexpected argument 'softmax'/);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: raf-op <command>/);
    for (const r of [command, option, other, positional, none]) expect(r.stdout).toBe('');
  });
});
