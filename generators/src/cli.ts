// `npm run gen [-- --check | --dry-run]`: regenerate every binding from specs/, or say what is stale.

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './generate.ts';
import { SpecErrors } from './spec/errors.ts';

const USAGE = `usage: raf-op gen [--check] [--dry-run] [--root DIR]
  --check     exit 1 when generated files are stale, missing or extra (writes nothing)
  --dry-run   print what would change (writes nothing)
  --root DIR  repository root (default: the current directory)`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      check: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      root: { type: 'string', default: process.cwd() },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || (positionals.length && positionals[0] !== 'gen')) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const root = resolve(values.root);
  const readOnly = values.check || values['dry-run'];
  const started = performance.now();
  const result = await generate(root, { check: readOnly });
  const ms = (performance.now() - started).toFixed(0);
  const verb = { create: readOnly ? 'missing' : 'created', update: readOnly ? 'stale' : 'updated', delete: readOnly ? 'extra' : 'deleted' };
  for (const c of result.changes) console.log(`  ${verb[c.action].padEnd(8)} ${c.path}${c.kind === 'stub' ? '  (hand-written stub)' : ''}`);
  const summary = `${result.model.ops.length} ops, ${result.files} files, ${result.changes.length} changed, ${ms} ms`;
  if (values.check && result.changes.length) {
    console.error(`raf-op gen --check: generated files do not match the specs (${summary}).\nFix with: npm run gen`);
    return 1;
  }
  console.log(`raf-op gen${readOnly ? (values.check ? ' --check' : ' --dry-run') : ''}: ${summary}`);
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
