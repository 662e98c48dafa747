// `yo raf-op` as root: yo drops to uid 1000 before loading the generator, which then cannot read root's home or write
// the checkout. The generator says so and names the command that works (`npm run new`), instead of yo's TypeError.

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the generator's entry points, without declarations
import { rootDropProblem } from '../../generators/app/root-check.js';

const REPO = resolve(import.meta.dirname, '../..');
const check = rootDropProblem as (sub: string | undefined, env: Record<string, unknown>) => string | undefined;

describe('yo raf-op started as root', () => {
  const dropped = { uid: 1000, home: '/root', cwd: '/work/repo', homeOwner: 0 };

  it('says yo dropped root and names npm run new, for the app and for regen', () => {
    const app = check(undefined, { ...dropped, readableHome: false, writableCwd: false });
    expect(app).toBe(
      'raf-op: this yo process runs as uid 1000, which cannot read /root or write /work/repo.\n' +
        '  yo was started as root and dropped to uid 1000 (yo refuses to run generators as root).\n' +
        '  hint: as root (a CI container), run the same generator without yo: npm run new -- NAME [flags] ' +
        '(npm run new -- regen for raf-op:regen); or run yo as the user who owns the checkout.',
    );
    expect(check('regen', { ...dropped, readableHome: true, writableCwd: false })).toContain(
      'cannot write /work/repo.\n  yo was started as root',
    );
    expect(check('regen', { ...dropped, readableHome: true, writableCwd: false })).toContain(
      'without yo: npm run new -- regen;',
    );
  });

  it('lets the generator run as root itself, or as a user who can read its home and write the checkout', () => {
    expect(check(undefined, { ...dropped, uid: 0, readableHome: false, writableCwd: false })).toBeUndefined();
    expect(check(undefined, { ...dropped, uid: 1000, readableHome: true, writableCwd: true })).toBeUndefined();
  });

  it.runIf(process.getuid?.() === 0)(
    'as root here, `yo raf-op` exits 1 with that message (not a crash inside yo) and writes nothing',
    () => {
      const yo = join(dirname(createRequire(import.meta.url).resolve('yo/package.json')), 'lib/cli.js');
      const r = spawnSync(process.execPath, [yo, 'raf-op', 'never_written', '--compute', 'x', '--yes'], {
        cwd: REPO,
        encoding: 'utf8',
        env: { ...process.env, YO_NO_UPDATE_NOTIFIER: '1', NO_UPDATE_NOTIFIER: '1' },
        timeout: 120_000,
      });
      expect(r.stderr).toContain('yo was started as root and dropped to uid');
      expect(r.stderr).toContain('npm run new -- NAME [flags]');
      expect(r.stderr).not.toContain('ERR_INVALID_ARG_TYPE');
      expect(r.status).toBe(1);
      expect(spawnSync('git', ['status', '--porcelain', 'specs'], { cwd: REPO, encoding: 'utf8' }).stdout).toBe('');
    },
    150_000,
  );
});
