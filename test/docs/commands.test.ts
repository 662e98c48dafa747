// Every command example in README.md and docs/*.md (fenced ```sh / ```bash blocks) is either RUN here, exactly as
// written, or CHECKED: it names an npm script that exists, a file that exists, a generator or CLI command that exists,
// and only flags that command accepts. The RUN table below says which commands run; every other command is checked,
// and a command no checker knows fails this test, so a new kind of example needs a checker (or a RUN entry) here.
// examples.test.ts runs every one of them (verbatim, in a copy of the repository, reduced, or by .ci/run).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandPages, pageCommands, ROOT, type Command } from './shell.ts';

/**
 * Cheap commands this test runs as written, from the repository root, expecting exit status 0. Anything else is
 * CHECKED (the check is the reason, in the test's name): the suite itself (`npm test`), installs, benchmarks,
 * scaffolds that write into the tree, system set-up with sudo and commands that take minutes.
 */
const RUN: ReadonlySet<string> = new Set(['npm run gen -- --check']);

/**
 * Pages whose every sh block another test runs verbatim, in order: docs/package.md is the package path, which
 * `npm run test:package` (scripts/user-package-test.sh) runs as written in a temporary folder (it packs, installs and
 * builds, minutes of work). Here we check only that the script still reads this page.
 */
const RUN_ELSEWHERE: Readonly<Record<string, string>> = { 'docs/package.md': 'scripts/user-package-test.sh' };

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const generatorPkg = JSON.parse(readFileSync(join(ROOT, 'generators/package.json'), 'utf8')) as {
  bin: Record<string, string>;
};

const helpCache = new Map<string, string>();
/** The help text of a generator entry (`cli gen --help`, `scaffold --help`), run once. */
function help(...args: string[]): string {
  const key = args.join(' ');
  if (!helpCache.has(key)) {
    const r = spawnSync(process.execPath, [join(ROOT, 'generators/bin/run.mjs'), ...args, '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    helpCache.set(key, `${r.stdout}\n${r.stderr}`);
  }
  return helpCache.get(key)!;
}

/** Flags a help text lists (`--check`, `-y, --yes`). */
const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])(--?[a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
/** Flags a script's source (and the local modules it imports) tests for as string literals (`argv.includes('--quick')`). */
function flagsInSource(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const imports = [...text.matchAll(/from '(\.\.?\/[^']+\.ts)'/g)].map((m) => join(dirname(file), m[1]!));
  const sources = [
    text,
    ...imports.filter((f) => existsSync(join(ROOT, f))).map((f) => readFileSync(join(ROOT, f), 'utf8')),
  ];
  return new Set(sources.flatMap((t) => [...t.matchAll(/['"`](--[a-z][a-z0-9-]*)['"`]/g)].map((m) => m[1]!)));
}

const flags = (words: readonly string[]) => words.filter((w) => /^--?[a-z]/.test(w)).map((w) => w.split('=')[0]!);

function expectFlags(c: Command, given: readonly string[], accepted: ReadonlySet<string>, what: string): void {
  for (const f of flags(given))
    expect(accepted.has(f), `${c.page}:${c.line}: ${f} is not a flag ${what} accepts (${c.text})`).toBe(true);
}

const specExists = (name: string) =>
  spawnSync('git', ['ls-files', '--cached', '--others', `specs/*/${name}.yaml`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).stdout.trim() !== '';

/** An environment variable a command sets must be read somewhere in the repository's scripts or sources. */
function expectEnvKnown(c: Command): void {
  for (const assignment of c.env) {
    const name = assignment.split('=')[0]!;
    const r = spawnSync(
      'git',
      [
        'grep',
        '-l',
        '--untracked',
        '-F',
        name,
        '--',
        'scripts',
        'generators/src',
        'generators/bin',
        'runtime/src',
        'test',
        'bench',
        '.ci',
      ],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    const readers = r.stdout.split('\n').filter((f) => f && !f.startsWith('test/docs/'));
    expect(readers.length, `${c.page}:${c.line}: ${name} is read by no script or source`).toBeGreaterThan(0);
  }
}

/** State carried between the commands of one block: ops scaffolded and folders made, and a `cd` into one. */
interface BlockState {
  readonly scaffolded: Set<string>;
  readonly made: Set<string>;
  inPackage: boolean;
}

/** Checks one command; returns what was checked (for the test's name). */
function check(c: Command, state: BlockState): string {
  expectEnvKnown(c);
  let words = [...c.words];
  if (words[0] === 'sudo') words = words.slice(1);
  const [cmd, ...rest] = words;
  const where = `${c.page}:${c.line}`;
  if (state.inPackage) return checkInPackage(c, words, where);
  switch (cmd) {
    case 'npm': {
      const [sub, ...args] = rest;
      if (sub === 'install' || sub === 'ci' || sub === 'pack') return `npm ${sub}`;
      if (sub === 'test') {
        expect(pkg.scripts.test, `${where}: package.json has no test script`).toBeDefined();
        expectFlags(c, args.slice(args.indexOf('--') + 1), flagsIn(''), 'npm test');
        return 'script test exists';
      }
      expect(sub, `${where}: an npm command no check knows: ${c.text}`).toBe('run');
      const [script, ...more] = args;
      expect(pkg.scripts[script!], `${where}: package.json has no script '${script}'`).toBeDefined();
      const after = more[0] === '--' ? more.slice(1) : more;
      expect(more.length === 0 || more[0] === '--', `${where}: arguments to npm run go after --`).toBe(true);
      if (script === 'gen' || script === 'diff' || script === 'breaking')
        expectFlags(c, after, flagsIn(help('cli', script)), `raf-op ${script}`);
      else if (script === 'new') {
        expectFlags(c, after, flagsIn(help('scaffold')), 'the scaffold');
        scaffoldName(c, after, state);
      } else if (script === 'bench') expectFlags(c, after, flagsInSource('bench/run.ts'), 'bench/run.ts');
      else expect(after, `${where}: npm run ${script} takes no arguments here; add a check`).toEqual([]);
      return `script ${script} exists${after.length ? `, flags ${flags(after).join(' ')} accepted` : ''}`;
    }
    case 'npx': {
      const [tool, ...args] = rest;
      if (tool === 'vitest') {
        expect(args[0], `${where}: npx vitest run FILE`).toBe('run');
        for (const f of args.slice(1).filter((a) => !a.startsWith('-'))) {
          const op = /^test\/generated\/(\w+)\.test\.ts$/.exec(f)?.[1];
          expect(
            existsSync(join(ROOT, f)) || (op !== undefined && state.scaffolded.has(op)),
            `${where}: ${f} does not exist (nor is it scaffolded above)`,
          ).toBe(true);
        }
        return 'test file exists';
      }
      if (tool === 'tsx') {
        const [file, ...args2] = args;
        expect(existsSync(join(ROOT, file!)), `${where}: ${file} does not exist`).toBe(true);
        expectFlags(c, args2, flagsInSource(file!), file!);
        return `${file} exists${flags(args2).length ? ', flags accepted' : ''}`;
      }
      if (tool === 'yo') {
        const [gen, ...args2] = args;
        const m = /^raf-op(?::([a-z-]+))?$/.exec(gen ?? '');
        expect(m, `${where}: yo runs generator raf-op here, not '${gen}'`).not.toBeNull();
        const sub = m![1] ?? 'app';
        expect(
          existsSync(join(ROOT, 'generators', sub)),
          `${where}: generator-raf-op has no sub-generator ${sub}`,
        ).toBe(true);
        if (sub === 'app') {
          expectFlags(c, args2, flagsIn(help('scaffold')), 'yo raf-op');
          scaffoldName(c, args2, state);
        }
        return `generator raf-op${m![1] ? `:${sub}` : ''} exists`;
      }
      if (tool === 'raf-op') {
        expect(generatorPkg.bin['raf-op'], `${where}: generator-raf-op has no raf-op bin`).toBeDefined();
        const [sub, ...args2] = args;
        if (sub === '--help') return 'raf-op bin exists';
        expect(
          flagsIn(help('cli')).has(sub!) || new RegExp(`^\\s+${sub}\\s`, 'm').test(help('cli')),
          `${where}: raf-op has no command ${sub}`,
        ).toBe(true);
        expectFlags(c, args2, flagsIn(help('cli', sub!)), `raf-op ${sub}`);
        if (sub === 'init') {
          const dir = args2.find((a) => !a.startsWith('-'));
          if (dir) state.made.add(dir);
        }
        return `raf-op ${sub} exists`;
      }
      throw new Error(`${where}: an npx command no check knows: ${c.text}`);
    }
    case 'node': {
      const file = rest.find((a) => !a.startsWith('-'))!;
      expect(existsSync(join(ROOT, file)), `${where}: ${file} does not exist`).toBe(true);
      return `${file} exists`;
    }
    case 'mkdir': {
      for (const d of rest.filter((a) => !a.startsWith('-'))) state.made.add(d);
      return 'mkdir';
    }
    case 'bash': {
      expect(existsSync(join(ROOT, rest[0]!)), `${where}: ${rest[0]} does not exist`).toBe(true);
      return `${rest[0]} exists`;
    }
    case 'cd': {
      const dir = rest[0]!;
      expect(state.made.has(dir) || existsSync(join(ROOT, dir)), `${where}: cd ${dir}: no such folder`).toBe(true);
      state.inPackage = state.made.has(dir);
      return `cd into ${dir}`;
    }
    case 'git':
      expect(['diff', 'status', 'log', 'clone'], `${where}: git ${rest[0]}`).toContain(rest[0]);
      return `git ${rest[0]}`;
    default:
      throw new Error(
        `${where}: a command no check knows: ${c.text} (add a check or a RUN entry in test/docs/commands.test.ts)`,
      );
  }
}

/** `yo raf-op NAME` / `npm run new -- NAME`: a lower_snake_case name that is no op yet (unless --force). */
function scaffoldName(c: Command, args: readonly string[], state: BlockState): void {
  const takesValue = new Set([
    '--compute',
    '--schema',
    '--category',
    '--doc',
    '--args',
    '--out',
    '--outputs',
    '--grad',
    '--saves',
    '--fusion',
    '--cast',
    '--relay',
    '--onnx',
    '--dialects',
    '--shapes',
    '--grid',
    '--domain',
  ]);
  const positional = args.filter((a, i) => !a.startsWith('-') && !takesValue.has(args[i - 1] ?? ''));
  const name = positional[0];
  if (!name || name === 'regen') return;
  expect(name, `${c.page}:${c.line}: op names are lower_snake_case`).toMatch(/^[a-z][a-z0-9_]*$/);
  if (!args.includes('--force'))
    expect(
      specExists(name),
      `${c.page}:${c.line}: '${name}' is an existing op: the scaffold refuses it without --force`,
    ).toBe(false);
  state.scaffolded.add(name);
}

/** Inside a package made by `raf-op init` earlier in the block: its scripts are the ones init writes. */
function checkInPackage(c: Command, words: readonly string[], where: string): string {
  const init = readFileSync(join(ROOT, 'generators/src/init.ts'), 'utf8');
  const [cmd, sub, script] = words;
  if (cmd === 'npm' && ['install', 'test', 'ci', 'pack'].includes(sub!)) return `npm ${sub} in the package`;
  if (cmd === 'npx' && sub === 'raf-op') {
    const [, , command] = words;
    expect(new RegExp(`^\\s+${command}\\s`, 'm').test(help('cli')), `${where}: raf-op has no command ${command}`).toBe(
      true,
    );
    expectFlags(c, words.slice(3), flagsIn(help('cli', command!)), `raf-op ${command}`);
    return `raf-op ${command} in the package`;
  }
  if (cmd === 'npm' && sub === 'run') {
    expect(
      new RegExp(`['"]?${script}['"]?: ['"]`).test(init),
      `${where}: raf-op init writes no script '${script}'`,
    ).toBe(true);
    return `the package's script ${script}`;
  }
  if (cmd === 'node' || cmd === 'npx') {
    expect(
      readFileSync(join(ROOT, c.page), 'utf8').split(words[1]!).length,
      `${where}: ${words[1]} is not shown on the page`,
    ).toBeGreaterThan(2);
    return `${words[1]} shown on the page`;
  }
  if (cmd === 'cd') return 'cd';
  throw new Error(`${where}: a command no check knows inside a package: ${c.text}`);
}

const all = commandPages().flatMap((p) => pageCommands(p));

describe('command examples in README.md and docs/*.md', () => {
  it('the pages have command examples, and the ones README.md lists for set-up are there', () => {
    expect(all.length).toBeGreaterThan(20);
    const readme = all.filter((c) => c.page === 'README.md').map((c) => c.text);
    // .ci/run runs these as the README's set-up, verbatim.
    expect(readme).toEqual(expect.arrayContaining(['npm install', 'npm run demo', 'npm test']));
  });

  it('every RUN entry is on some page (a stale entry would hide a renamed command)', () => {
    for (const r of RUN)
      expect(
        all.map((c) => c.text),
        r,
      ).toContain(r);
  });

  const byBlock = new Map<string, Command[]>();
  for (const c of all) {
    const key = `${c.page}#${c.block}`;
    byBlock.set(key, [...(byBlock.get(key) ?? []), c]);
  }
  for (const [page, script] of Object.entries(RUN_ELSEWHERE))
    it(`RUN by ${script}: every sh block of ${page}`, () => {
      expect(
        all.some((c) => c.page === page),
        `${page} has no sh block`,
      ).toBe(true);
      const text = readFileSync(join(ROOT, script), 'utf8');
      expect(text, `${script} does not run ${page}`).toContain(page);
      expect(pkg.scripts['test:package'], 'package.json has no test:package script').toContain(script);
    });

  for (const [key, cmds] of byBlock) {
    if (key.split('#')[0]! in RUN_ELSEWHERE) continue;
    it(`CHECKED ${key}: ${cmds.map((c) => c.text).join(' ; ')}`.slice(0, 200), () => {
      const state: BlockState = { scaffolded: new Set(), made: new Set(), inPackage: false };
      for (const c of cmds) {
        if (RUN.has(c.text)) continue;
        expect(check(c, state)).toBeTruthy();
      }
    });
  }

  for (const text of RUN) {
    it(`RUN ${text}`, { timeout: 120_000 }, async () => {
      // `gen --check` refuses while another gen holds the lock (a developer's run): wait for it rather than fail.
      for (let attempt = 0; ; attempt++) {
        try {
          execFileSync('bash', ['-c', text], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
          return;
        } catch (e) {
          const err = e as { status: number; stdout: string; stderr: string };
          if (attempt < 6 && /a raf-op gen is running/.test(err.stderr)) {
            await new Promise((r) => setTimeout(r, 5_000));
            continue;
          }
          throw new Error(`${text} exited ${err.status}:\n${err.stdout}\n${err.stderr}`);
        }
      }
    });
  }
});

describe('the command checker', () => {
  const cmd = (line: string) => pageCommands('x.md', `\`\`\`sh\n${line}\n\`\`\``);
  const run = (line: string) => {
    const state: BlockState = { scaffolded: new Set(), made: new Set(), inPackage: false };
    for (const c of cmd(line)) check(c, state);
  };

  it('splits commands, keeps quoted words whole and drops comments', () => {
    expect(cmd('A=1 npm run x -- --f "a b # c" && cd d # note').map((c) => [c.env, c.words])).toEqual([
      [['A=1'], ['npm', 'run', 'x', '--', '--f', 'a b # c']],
      [[], ['cd', 'd']],
    ]);
  });

  it('refuses a missing script, an unknown flag, a missing file, an existing op and an unknown command', () => {
    expect(() => run('npm run no-such-script')).toThrow("no script 'no-such-script'");
    expect(() => run('npm run gen -- --chekc')).toThrow('--chekc is not a flag raf-op gen accepts');
    expect(() => run('npm run bench -- --quik')).toThrow('--quik is not a flag bench/run.ts accepts');
    expect(() => run('npx tsx bench/no-such.ts')).toThrow('bench/no-such.ts does not exist');
    expect(() => run('npx vitest run test/generated/no_such_op.test.ts')).toThrow('does not exist');
    expect(() => run('npx yo raf-op softmax --yes')).toThrow("'softmax' is an existing op");
    expect(() => run('NO_SUCH_VARIABLE_X=1 npm test')).toThrow('NO_SUCH_VARIABLE_X is read by no script');
    expect(() => run('make all')).toThrow('a command no check knows');
  });

  it('accepts a scaffold followed by its own generated test, and a package made by init', () => {
    expect(() =>
      run('npm run new -- brand_new_op --compute "x * 2" --yes && npx vitest run test/generated/brand_new_op.test.ts'),
    ).not.toThrow();
    expect(() => run('npx raf-op init my-ops && cd my-ops && npm install && npm run gen && npm test')).not.toThrow();
  });
});
