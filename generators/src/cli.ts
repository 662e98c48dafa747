#!/usr/bin/env node
// `npm run gen [-- --check | --dry-run]`: regenerate every binding from specs/, or say what is stale;
// `npm run diff` / `npm run breaking`: review a spec edit against a git ref.

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { recordUpToDate, upToDate } from './fresh.ts';
import { SpecErrors } from './spec/errors.ts';

const USAGE = `usage: raf-op gen [--check] [--dry-run] [--root DIR]
       raf-op init DIR [--name NAME]   create an npm package of your own ops
       raf-op new NAME [flags]         scaffold an op (yo raf-op NAME)
       raf-op diff [--against REF] [--summary] [--root DIR]
       raf-op breaking [--against REF] [--root DIR]
  --check       exit 1 when generated files are stale, missing or extra, or a dialect level has no kernel (writes nothing)
  --dry-run     print what would change (writes nothing)
  --against REF git ref whose specs the working tree is compared with (default: HEAD)
  --summary     diff: list generated files without their hunks
  --root DIR    repository root (default: the current directory)`;

const COMMANDS = ['gen', 'diff', 'breaking'];

async function main(argv: string[]): Promise<number> {
  // Commands for an operator author's own package (issue 16): their flags are their own, so they parse them.
  if (argv[0] === 'init') return (await import('./init.ts')).runInit(argv.slice(1));
  if (argv[0] === 'new') return (await import('./init.ts')).runNew(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      check: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      root: { type: 'string', default: process.cwd() },
      against: { type: 'string', default: 'HEAD' },
      summary: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || (positionals.length && !COMMANDS.includes(positionals[0]!))) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const root = resolve(values.root);
  if (positionals[0] === 'diff') {
    const { diffReport } = await import('./review/report.ts');
    process.stdout.write((await diffReport(root, { against: values.against, summary: values.summary })).markdown);
    return 0;
  }
  if (positionals[0] === 'breaking') {
    const { breakingReport } = await import('./review/report.ts');
    const { markdown, failed } = breakingReport(root, values.against);
    process.stdout.write(markdown);
    return failed ? 1 : 0;
  }
  const readOnly = values.check || values['dry-run'];
  const started = performance.now();
  const label = `raf-op gen${readOnly ? (values.check ? ' --check' : ' --dry-run') : ''}`;
  const fresh = upToDate(root);
  if (fresh) {
    console.log(`${label}: up to date (${fresh}); checked in ${(performance.now() - started).toFixed(0)} ms`);
    return 0;
  }
  // The pipeline's modules (ts-morph, prettier, the emitters) load only when there is work to do.
  const [{ generate }, { coverage, coverageProblems }, { emitAll }] = await Promise.all([
    import('./generate.ts'),
    import('./emit/coverage.ts'),
    import('./emit/index.ts'),
  ]);
  const result = await generate(root, { check: readOnly });
  const ms = (performance.now() - started).toFixed(0);
  const verb = {
    create: readOnly ? 'missing' : 'created',
    update: readOnly ? 'stale' : 'updated',
    delete: readOnly ? 'extra' : 'deleted',
  };
  for (const c of result.changes)
    console.log(`  ${verb[c.action].padEnd(8)} ${c.path}${c.kind === 'stub' ? '  (hand-written stub)' : ''}`);
  const summary = `${result.model.ops.length} ops, ${result.files} files, ${result.changes.length} changed, ${ms} ms`;
  // A dialect level with no kernel would only fail at dispatch; docs/coverage.md marks it, --check fails on it.
  const problems =
    coverageProblems(result.model) ?? coverage(result.model, Object.values(emitAll(result.model)).flat()).problems;
  for (const p of problems) console.error(`${String(p).replace(': error:', values.check ? ': error:' : ': warning:')}`);
  if (values.check && problems.length) {
    console.error(
      `raf-op gen --check: ${problems.length} dialect level${problems.length === 1 ? '' : 's'} without a kernel (see docs/coverage.md).`,
    );
    return 1;
  }
  if (values.check && result.changes.length) {
    console.error(`raf-op gen --check: generated files do not match the specs (${summary}).\nFix with: npm run gen`);
    return 1;
  }
  console.log(`${label}: ${summary}`);
  // The tree now matches the specs (written, or checked with nothing to change): later runs may skip the pipeline.
  if (!problems.length && (!readOnly || !result.changes.length)) {
    recordUpToDate(root, result.outputs, `${result.model.ops.length} ops, ${result.files} files`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof SpecErrors) {
      for (const err of e.errors) console.error(String(err));
      console.error(`raf-op gen: ${e.errors.length} error${e.errors.length === 1 ? '' : 's'}; nothing was written.`);
      process.exit(1);
    }
    if (e instanceof Error && 'code' in e && String((e as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`${e.message}\n${USAGE}`);
      process.exit(2);
    }
    console.error(e);
    process.exit(1);
  },
);
