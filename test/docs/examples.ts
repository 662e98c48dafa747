// Every command example in README.md and docs/*.md is RUN by a test, in one of four ways; this file lists which way
// for each (commands.test.ts also checks each one statically: script, file, flags):
//
// - CI: `.ci/run` (what CI runs) runs it verbatim: installs, the full suite, the format check,
//   test:package. Asserted here: the command is one of `.ci/run`'s commands (only `sudo` dropped, as CI is root,
//   or an environment variable added).
// - PAGE: a page whose every sh block a script runs verbatim (docs/package.md by `npm run test:package`).
// - COPY: a block that writes into the tree (a scaffold, then its tests) runs in order, as written, in a throwaway
//   copy of the repository. As root `yo` refuses to run, so there `npx yo raf-op ARGS` runs as `npm run new -- ARGS`,
//   the same generator without yo (the hint yo's refusal prints); a question-asking scaffold gets `--yes` (every
//   default answer taken).
// - HERE: run in this checkout, as written, or in a reduced form for minutes-long commands (a benchmark on one small
//   case, `--quick`). A reduced form keeps the command and every flag of the example (a flag's value may only be
//   narrowed to a value that contains it) and is listed with its reason below.
//
// A command on no list fails test/docs/examples.test.ts, and so does a list entry no page has any more; the runs
// themselves are test/doc-examples/run.test.ts (minutes of work, kept out of the quick `npx vitest run test/docs`).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { commandPages, pageCommands, ROOT, type Command } from './shell.ts';

export const all = commandPages().flatMap((p) => pageCommands(p));
export const blockKey = (c: Command) => `${c.page}#${c.block}`;

/** Pages whose every sh block a script runs verbatim, in order. */
export const PAGE: Readonly<Record<string, string>> = { 'docs/package.md': 'scripts/user-package-test.sh' };

/** Blocks run in a fresh copy of the repository, command after command. */
export const COPY: readonly string[] = ['README.md#2', 'docs/writing-ops.md#0', 'docs/writing-ops.md#1'];

/** Commands .ci/run runs (verbatim but for `sudo` and added environment variables). */
export const CI: ReadonlySet<string> = new Set([
  'npm install',
  'npm run demo',
  'npm test',
  'sudo bash scripts/install-webgpu-deps.sh',
  'sudo bash scripts/install-lavapipe.sh',
  'sudo bash scripts/install-chromium-webgpu.sh',
  'npm run gen -- --check',
  'RAF_OP_NO_MEMO=1 RAF_OP_FORMAT_WHOLE=1 npm run gen -- --check',
  'npm run typecheck',
  'npm run format:check',
  'npm run test:consumer',
  'RAF_KEEP=0 npm run test:package',
  'npm run fetch:models',
  'RAF_REQUIRE_WEBGPU=1 npm test',
]);

const BENCH_SMALL =
  'npm run bench -- --quick --filter "add [1,C,1,1]" --impls raf-op --cpu-time --gc --wasm-build simd';
const BENCH_MATMUL = 'npm run bench -- --quick --filter "matmul 256³" --impls raf-op,tfjs-wasm,onnxruntime';
const BENCH_WEBGPU = 'npm run bench -- --quick --filter "add 2^20 · webgpu" --impls raf-op';
const BENCH_WHY = 'a full benchmark takes many minutes: one small case, --quick';
const ONNX_WHY = "the whole conformance suite takes minutes: the cases named 'gather'";

/** Commands run in this checkout: the example itself (no entry needed beyond its text) or a reduced form. */
export const HERE: Readonly<Record<string, { run?: string; why?: string }>> = {
  'npm run bench': { run: BENCH_SMALL, why: BENCH_WHY },
  'npm run bench -- --quick': { run: BENCH_SMALL, why: BENCH_WHY },
  'npm run bench -- --cpu-time': { run: BENCH_SMALL, why: BENCH_WHY },
  'npm run bench -- --gc': { run: BENCH_SMALL, why: BENCH_WHY },
  'npm run bench -- --wasm-build simd': { run: BENCH_SMALL, why: BENCH_WHY },
  'npm run bench -- --filter matmul': { run: BENCH_MATMUL, why: BENCH_WHY },
  'npm run bench -- --impls raf-op,tfjs-wasm,onnxruntime': { run: BENCH_MATMUL, why: BENCH_WHY },
  'npm run bench -- --filter webgpu': { run: BENCH_WEBGPU, why: BENCH_WHY },
  'npx tsx bench/profile-model.ts ppocr-cls-mobile-v2 20': {},
  'npx tsx bench/profile-model.ts ppocr-cls-mobile-v2 20 --nodes': {},
  'npx tsx test/onnx-backend/cli.ts': { run: 'npx tsx test/onnx-backend/cli.ts gather', why: ONNX_WHY },
  'npx tsx test/onnx-backend/cli.ts --ort': { run: 'npx tsx test/onnx-backend/cli.ts gather --ort', why: ONNX_WHY },
  'npx tsx test/onnx-backend/cli.ts gather --failures': {},
  'npx vitest run test/generated/softmax.test.ts': {},
  'npx vitest run test/generator/docs.test.ts': {},
  'npm run diff -- --against origin/main': {},
  'npm run breaking -- --against origin/main': {},
};

/** Commands run alone in a fresh copy: `--update` rewrites test/onnx-backend/expectations.json (and refuses a filter). */
export const COPY_ALONE: ReadonlySet<string> = new Set(['npx tsx test/onnx-backend/cli.ts --update']);

/** Shell words of a run form (same parser as the pages'). */
export const parse = (text: string): Command => pageCommands('x.md', `\`\`\`sh\n${text}\n\`\`\``)[0]!;

/** The run form does what the example does: same command, every flag kept (values only narrowed), env kept. */
export function covers(example: Command, run: Command): void {
  const what = `${example.text} → ${run.text}`;
  for (const e of example.env) expect(run.env, what).toContain(e);
  const ex = example.words;
  const rw = run.words;
  const lead = ex.indexOf('--') < 0 ? ex.length : ex.indexOf('--') + 1;
  const firstFlag = ex.findIndex((w) => w.startsWith('--') && w !== '--');
  const head = ex.slice(0, Math.min(lead, firstFlag < 0 ? ex.length : firstFlag));
  expect(rw.slice(0, head.length), what).toEqual(head);
  ex.forEach((w, i) => {
    if (i < head.length) return;
    if (w.startsWith('--')) {
      expect(rw, `${what}: ${w} dropped`).toContain(w);
      const value = ex[i + 1];
      if (value !== undefined && !value.startsWith('--')) {
        const given = rw[rw.indexOf(w) + 1] ?? '';
        expect(given.includes(value), `${what}: ${w} ${value} became ${w} ${given}`).toBe(true);
      }
    } else if (!ex[i - 1]?.startsWith('--')) expect(rw, `${what}: ${w} dropped`).toContain(w);
  });
}

/** `.ci/run`'s commands, parsed like a page's. */
export const ciCommands = pageCommands('.ci/run', `\`\`\`sh\n${readFileSync(join(ROOT, '.ci/run'), 'utf8')}\n\`\`\``);

/** `npx yo raf-op[:sub] ARGS` as root: the same generator through `npm run new`; a scaffold that asks: --yes. */
export function inCopy(c: Command): string {
  let words = [...c.words];
  if (process.getuid?.() === 0 && words[0] === 'npx' && words[1] === 'yo') {
    const sub = words[2]!.split(':')[1];
    words = ['npm', 'run', 'new', '--', ...(sub ? [sub] : []), ...words.slice(3)];
  }
  const name =
    words[0] === 'npx' && words[2] === 'raf-op'
      ? words[3]
      : words.slice(0, 4).join(' ') === 'npm run new --'
        ? words[4]
        : undefined;
  // A test cannot answer prompts: the example's questions are taken at their defaults.
  if (name !== undefined && name !== 'regen' && !words.includes('--yes')) words.push('--yes');
  const quote = (w: string) => (/^[\w./:=,@-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);
  return [...c.env, ...words].map(quote).join(' ');
}
