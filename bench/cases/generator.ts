// Cases: the generator on a temporary copy of this repository: full regeneration (memo-free, and with warm memos), a
// no-op one, a regeneration after one spec edit, and scaffolding (done, and refused) as the processes a user runs.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/** generate() of every spec into empty generated folders; `memos: false` runs as the first run on a machine would. */
const fullCase = (memos: boolean) =>
  defineCase({
    name: memos ? 'gen full (memos warm)' : 'gen full',
    what: memos
      ? 'generate() of every shipped spec into empty generated folders, its printing and formatting memoized by earlier runs'
      : 'generate() of every shipped spec into empty generated folders (printed, prettier-formatted, written; no memos)',
    group: 'generator',
    impls: {
      'raf-op': {
        async setup() {
          const dir = tempRepo();
          const ops = (await generate(dir)).model.ops.length;
          return {
            before: () => GENERATED_DIRS.forEach((d) => rmSync(join(dir, d), { recursive: true, force: true })),
            run: async () => {
              if (!memos) process.env.RAF_OP_NO_MEMO = '1';
              try {
                await generate(dir);
              } finally {
                delete process.env.RAF_OP_NO_MEMO;
              }
            },
            dispose: () => rmSync(dir, { recursive: true, force: true }),
            perUnit: perOp(ops),
          };
        },
      },
    },
  });

const full = fullCase(false);
const fullWarm = fullCase(true);

const oneSpec = defineCase({
  name: 'gen one spec',
  what: "generate() after an edit of one spec (sigmoid's doc, new text each run): that op's files and the aggregates",
  group: 'generator',
  impls: {
    'raf-op': {
      async setup() {
        const dir = tempRepo();
        await generate(dir);
        const spec = join(dir, 'specs/math/sigmoid.yaml');
        const original = readFileSync(spec, 'utf8');
        let n = 0;
        return {
          // A doc never seen before each run, so nothing of the edited op comes from the memos.
          before: () => writeFileSync(spec, original.replace(/^doc: /m, `doc: Edit ${process.pid}.${n++}. `)),
          run: async () => {
            const r = await generate(dir);
            if (!r.changes.some((c) => c.path.endsWith('/sigmoid.ts')))
              throw new Error("gen one spec: the edit changed none of its op's files");
          },
          dispose: () => rmSync(dir, { recursive: true, force: true }),
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
const RUN = join(ROOT, 'generators/bin/run.mjs');
const env = { ...process.env, YO_NO_UPDATE_NOTIFIER: '1', NO_UPDATE_NOTIFIER: '1' };

const scaffold = defineCase({
  name: 'scaffold elementwise op',
  what: '`npm run new -- softsign_N --compute "x / (K + abs(x))" --yes` as a process, N and K never scaffolded before: spec, bindings, stubs, checklist',
  group: 'generator',
  impls: {
    'raf-op': {
      setup() {
        const dir = tempRepo();
        // An op name never used before, in this run or an earlier one: the same name in the same fresh copy would find
        // every file printed and formatted in the memos, and time a scaffold no user runs.
        const fresh = `softsign_${Date.now().toString(36)}${process.pid.toString(36)}`;
        const unique = (Date.now() % 1_000_000) * 100 + 1;
        let n = 0;
        return {
          run: () => {
            // A formula never used before too: the printing memo knows a file from another op's up to the op's name,
            // so a repeated formula would find most of the op's files printed, which a user's new op does not.
            const compute = `x / (${unique + n} + abs(x))`;
            const args = [RUN, 'scaffold', `${fresh}_${n++}`, '--compute', compute, '--yes'];
            const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env });
            if (r.status !== 0) throw new Error(`npm run new failed:\n${r.stderr || r.stdout}`);
          },
          dispose: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
  },
});

const refused = defineCase({
  name: 'scaffold refused',
  what: '`npm run new -- softmax --compute x --yes` as a process: refused (the op exists), nothing written',
  group: 'generator',
  impls: {
    'raf-op': {
      setup() {
        const dir = tempRepo();
        return {
          run: () => {
            const args = [RUN, 'scaffold', 'softmax', '--compute', 'x', '--yes'];
            const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env });
            if (r.status !== 1 || !r.stderr.includes("op 'softmax' already exists"))
              throw new Error(`npm run new should have refused softmax:\n${r.stderr || r.stdout}`);
          },
          dispose: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
  },
});

/** `yo raf-op` itself: only where yo can run (as root it drops to uid 1000 and cannot write the checkout). */
const yo = defineCase({
  name: 'yo raf-op',
  what: '`yo raf-op softsign_N --compute "x / (1 + abs(x))" --yes --no-insight` as a process (yo and Yeoman loaded)',
  group: 'generator',
  unavailable: async () =>
    process.getuid?.() === 0 ? 'yo refuses to run as root (see scaffold elementwise op)' : undefined,
  impls: {
    'raf-op': {
      setup() {
        const dir = tempRepo();
        const yoCli = join(dirname(require.resolve('yo/package.json')), 'lib/cli.js');
        let n = 0;
        return {
          run: () => {
            const args = [yoCli, 'raf-op', `softsign_${n++}`, '--no-insight', '--compute', 'x / (1 + abs(x))', '--yes'];
            const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env });
            if (r.status !== 0) throw new Error(`yo raf-op failed:\n${r.stderr || r.stdout}`);
          },
          dispose: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    },
  },
});

export default [full, fullWarm, noop, oneSpec, scaffold, refused, yo] satisfies BenchCase[];
