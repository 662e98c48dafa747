// Cases: the generator on a temporary copy of this repository: full regeneration, a no-op one, and `yo raf-op`.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordUpToDate, upToDate } from '../../generators/src/fresh.ts';
import { generate } from '../../generators/src/generate.ts';
import { GENERATED_DIRS } from '../../generators/src/write.ts';
import { defineCase, type BenchCase } from '../case.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const SKIP = new Set(['node_modules', '.git', 'bench/results', 'runtime/src/dialects/wasm/build']);

/** A copy of the repository without node_modules (linked instead) or build output; removed at dispose. */
function tempRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'raf-op-bench-'));
  cpSync(ROOT, dir, { recursive: true, filter: (src) => !SKIP.has(relative(ROOT, src).split('\\').join('/')) });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

const perOp = (ops: number) => (ms: number) => `${(ms / ops).toFixed(2)} ms/op, ${ops} ops`;

const full = defineCase({
  name: 'gen full',
  what: 'generate() of every shipped spec into empty generated folders (prettier-formatted, written)',
  group: 'generator',
  impls: {
    'raf-op': {
      async setup() {
        const dir = tempRepo();
        const ops = (await generate(dir)).model.ops.length;
        return {
          before: () => GENERATED_DIRS.forEach((d) => rmSync(join(dir, d), { recursive: true, force: true })),
          run: () => generate(dir),
          dispose: () => rmSync(dir, { recursive: true, force: true }),
          perUnit: perOp(ops),
        };
      },
    },
  },
});

const noop = defineCase({
  name: 'gen no-op',
  what: '`npm run gen` with every generated file up to date: the fingerprint check, falling back to generate()',
  group: 'generator',
  impls: {
    'raf-op': {
      async setup() {
        const dir = tempRepo();
        const result = await generate(dir);
        recordUpToDate(dir, result.outputs, `${result.model.ops.length} ops, ${result.files} files`);
        return {
          run: async () => {
            // What the CLI does: the pipeline runs only when specs, generator or outputs changed since the last run.
            if (upToDate(dir) === undefined)
              throw new Error('gen no-op: the fingerprint check missed an unchanged tree');
          },
          dispose: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
  },
});

const require = createRequire(import.meta.url);

const yo = defineCase({
  name: 'yo raf-op',
  what: '`yo raf-op softsign_N --compute "x / (1 + abs(x))" --yes`: spec, stubs and regeneration, as a process',
  group: 'generator',
  impls: {
    'raf-op': {
      setup() {
        const dir = tempRepo();
        // As root, yo drops to uid 1000 and cannot write the checkout; the README's `npm run new` runs the same
        // generator through yeoman-environment, which is what this case then times.
        const asRoot = process.getuid?.() === 0;
        const command = asRoot
          ? [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'generators/src/scaffold/cli.ts')]
          : [join(dirname(require.resolve('yo/package.json')), 'lib/cli.js')];
        let n = 0;
        return {
          // A fresh op name each run, so every run scaffolds a new op rather than finding it done.
          run: () => {
            const args = asRoot ? [`softsign_${n++}`] : ['raf-op', `softsign_${n++}`, '--no-insight'];
            const r = spawnSync(process.execPath, [...command, ...args, '--compute', 'x / (1 + abs(x))', '--yes'], {
              cwd: dir,
              encoding: 'utf8',
              env: { ...process.env, YO_NO_UPDATE_NOTIFIER: '1', NO_UPDATE_NOTIFIER: '1' },
            });
            if (r.status !== 0) throw new Error(`yo raf-op failed:\n${r.stderr || r.stdout}`);
          },
          dispose: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
  },
});

export default [full, noop, yo] satisfies BenchCase[];
