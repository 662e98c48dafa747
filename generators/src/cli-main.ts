// raf-op's commands: `gen [--check | --dry-run]` regenerates every binding from specs/ or says what is stale
// (`npm run gen`); `diff` / `breaking` review a spec edit against a git ref; `--version`, `--help`, `--help` per
// command. runCli() returns the exit code instead of exiting, so tests call it in-process; cli.ts is the executable.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { recordUpToDate, upToDate } from './fresh.ts';
import { SpecErrors } from './spec/errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

const ROOT_OPTION = {
  root: { type: 'string', default: process.cwd() },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

/** Each command with its own options and help; an option another command takes is still an error here. */
const COMMANDS = {
  gen: {
    summary: 'regenerate every generated file from specs/ (writes only what changed)',
    usage: `usage: raf-op gen [--check | --dry-run] [--quiet] [--root DIR]
  --check       exit 1 when generated files are stale, missing or extra, a dialect level has no kernel, a hand kernel
                never reads one of its attrs, or a kernel file has no dialect in its spec (writes nothing)
  --dry-run     print what would change (writes nothing)
  --quiet       no progress lines while the pipeline runs
  --root DIR    repository root (default: the current directory)`,
    options: {
      check: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      ...ROOT_OPTION,
    },
  },
  diff: {
    summary: 'review a spec edit: the generated files it changes, as markdown',
    usage: `usage: raf-op diff [--against REF] [--summary] [--root DIR]
  --against REF git ref whose specs the working tree is compared with (default: HEAD)
  --summary     list generated files without their hunks
  --root DIR    repository root (default: the current directory)`,
    options: {
      against: { type: 'string', default: 'HEAD' },
      summary: { type: 'boolean', default: false },
      ...ROOT_OPTION,
    },
  },
  breaking: {
    summary: 'exit 1 when a spec edit breaks callers or serialized graphs',
    usage: `usage: raf-op breaking [--against REF] [--root DIR]
  --against REF git ref whose specs the working tree is compared with (default: HEAD)
  --root DIR    repository root (default: the current directory)`,
    options: {
      against: { type: 'string', default: 'HEAD' },
      ...ROOT_OPTION,
    },
  },
} satisfies Record<string, { summary: string; usage: string; options: Options }>;

type Command = keyof typeof COMMANDS;

const USAGE = `usage: raf-op <command> [options]     (raf-op <command> --help for its options)
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}
  init       create an npm package of your own ops: raf-op init DIR [--name NAME] [--from FOLDER]
  new        scaffold an op (yo raf-op NAME): raf-op new NAME [--compute EXPR ...] [--yes]
  --version     print the version of generator-raf-op
  --help        this help`;

/** A usage error: exit 2 with the message and the help it refers to. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/** generator-raf-op's version, from the package.json above this file (src/ in the repo, dist/generators/src/ built). */
function version(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'generator-raf-op') return pkg.version ?? 'unknown';
  }
  return 'unknown';
}

function parse(command: Command, args: string[]) {
  const spec = COMMANDS[command];
  try {
    return parseArgs({ args, allowPositionals: false, strict: true, options: spec.options }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (e) {
    // node:util names the option or argument; say which command refused it.
    throw new UsageError(`raf-op ${command}: ${(e as Error).message}`, spec.usage);
  }
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    console.log(version());
    return 0;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    (first === undefined ? console.error : console.log)(USAGE);
    return first === undefined ? 2 : 0;
  }
  // Commands for an operator author's own package (issue 16) parse their own arguments.
  if (first === 'init') return (await import('./init.ts')).runInit(rest);
  if (first === 'new') return (await import('./init.ts')).runNew(rest);
  if (!Object.hasOwn(COMMANDS, first)) {
    const what = first.startsWith('-') ? `unknown option '${first}'` : `unknown command '${first}'`;
    throw new UsageError(`raf-op: ${what}`, USAGE);
  }
  const command = first as Command;
  const values = parse(command, rest);
  if (values.help) {
    console.log(COMMANDS[command].usage);
    return 0;
  }
  if (values.check && values['dry-run'])
    throw new UsageError('raf-op gen: --check and --dry-run exclude each other', COMMANDS.gen.usage);
  const root = resolve(values.root as string);
  const against = values.against as string;
  if (command === 'diff') {
    const { diffReport } = await import('./review/report.ts');
    process.stdout.write((await diffReport(root, { against, summary: values.summary === true })).markdown);
    return 0;
  }
  if (command === 'breaking') {
    const { breakingReport } = await import('./review/report.ts');
    const { markdown, failed } = breakingReport(root, against);
    process.stdout.write(markdown);
    return failed ? 1 : 0;
  }
  return gen(root, { check: values.check === true, dryRun: values['dry-run'] === true, quiet: values.quiet === true });
}

async function gen(root: string, values: { check: boolean; dryRun: boolean; quiet: boolean }): Promise<number> {
  const readOnly = values.check || values.dryRun;
  const started = performance.now();
  const label = `raf-op gen${readOnly ? (values.check ? ' --check' : ' --dry-run') : ''}`;
  const fresh = upToDate(root);
  if (fresh) {
    console.log(`${label}: up to date (${fresh}); checked in ${(performance.now() - started).toFixed(0)} ms`);
    return 0;
  }
  // The pipeline's modules (ts-morph, prettier, the emitters) load only when there is work to do.
  const [{ generate }, { coverage, coverageProblems }, { emitAll }, { kernelProblems }] = await Promise.all([
    import('./generate.ts'),
    import('./emit/coverage.ts'),
    import('./emit/index.ts'),
    import('./kernel-use.ts'),
  ]);
  // A line per phase on stderr (stdout stays the list of changes and the summary).
  let phase = 0;
  const onPhase = values.quiet
    ? undefined
    : (done: string) =>
        console.error(`${label}: [${++phase}] ${done} (${(performance.now() - started).toFixed(0)} ms)`);
  const result = await generate(root, { check: readOnly, onPhase });
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
  // So is a hand kernel that never reads one of its attrs, or a kernel file no spec asks for (kernel-use.ts).
  const problems = [
    ...(coverageProblems(result.model) ?? coverage(result.model, Object.values(emitAll(result.model)).flat()).problems),
    ...kernelProblems(root, result.model),
  ];
  (await import('./memo.ts')).saveMemos();
  for (const p of problems) console.error(`${String(p).replace(': error:', values.check ? ': error:' : ': warning:')}`);
  if (values.check && problems.length) {
    console.error(
      `raf-op gen --check: ${problems.length} kernel problem${problems.length === 1 ? '' : 's'} (dialect levels without a kernel: see docs/coverage.md; kernels that ignore an attr; orphaned kernels).`,
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

/** Runs one command line; prints to stdout/stderr and resolves to the process's exit code. */
export function runCli(argv: string[]): Promise<number> {
  return main(argv).catch((e: unknown) => {
    if (e instanceof SpecErrors) {
      for (const err of e.errors) console.error(String(err));
      console.error(`raf-op gen: ${e.errors.length} error${e.errors.length === 1 ? '' : 's'}; nothing was written.`);
      return 1;
    }
    if (e instanceof Error && e.name === 'GenStateError') {
      console.error(`raf-op gen: ${e.message}`);
      return 1;
    }
    if (e instanceof UsageError) {
      console.error(`${e.message}\n${e.usage}`);
      return 2;
    }
    if (e instanceof Error && e.name === 'ReviewError') {
      const hint = (e as Error & { hint?: string }).hint;
      console.error(`raf-op ${argv[0]}: ${e.message}${hint ? `\n  hint: ${hint}` : ''}`);
      return 1;
    }
    console.error(e);
    return 1;
  });
}
