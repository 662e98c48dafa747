// `npm run new -- NAME [flags]` (and `raf-op new` in a package): the `yo raf-op` generator without yo. With --yes
// nothing is asked, so the scaffold runs directly (same answers, validation, plan and checklist as the generator, written all or nothing by the writer):
// Yeoman and its prompts, seconds of loading, are only needed to ask. Otherwise it runs the generator through
// yeoman-environment, skipping yo's root check, which drops a root process (a CI container) to uid 1000 and then
// cannot read /root or write the checkout. `regen [--check]` runs the sub-generator, as `yo raf-op:regen` does.

import { parseArgs } from 'node:util';
import { QUESTIONS } from './questions.ts';

/** One flag per question (`--grad` answers both the kind and the formulas). */
const FLAG_NAMES = [...new Set(QUESTIONS.filter((q) => q.flag !== 'NAME').map((q) => q.flag))];

type DirectRequest = { flags: Record<string, string | undefined>; resume: boolean; force: boolean };

/** The --yes request, or undefined when the generator must run (questions to ask, --help, regen, unknown flags). */
function directRequest(argv: readonly string[]): DirectRequest | undefined {
  if (argv[0] === 'regen') return undefined;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        ...Object.fromEntries(FLAG_NAMES.map((f) => [f, { type: 'string' as const }])),
        yes: { type: 'boolean', short: 'y' },
        resume: { type: 'boolean' },
        force: { type: 'boolean' },
      },
    });
  } catch {
    return undefined; // the generator reports what it makes of the arguments
  }
  const { values, positionals } = parsed;
  if (values.yes !== true || positionals.length > 1) return undefined;
  const flags: Record<string, string | undefined> = { NAME: positionals[0] };
  for (const f of FLAG_NAMES) flags[f] = (values as Record<string, unknown>)[f] as string | undefined;
  return { flags, resume: values.resume === true, force: values.force === true };
}

async function direct(root: string, req: DirectRequest): Promise<void> {
  const started = performance.now();
  const [{ prepareScaffold, scaffoldReport }, { acquireLock, apply, recover }] = await Promise.all([
    import('./run.ts'),
    import('../write.ts'),
  ]);
  const noQuestions = async () => {
    throw new Error('--yes: no question may be asked');
  };
  // Planned and written under the generator's lock, so a concurrent `npm run gen` never sees half a scaffold.
  const release = acquireLock(root);
  try {
    const recovered = recover(root);
    if (recovered) console.error(`raf-op gen: ${recovered}`);
    const prepared = await prepareScaffold(root, { ...req, yes: true }, noQuestions);
    apply(root, prepared.plan.changes);
    for (const c of prepared.plan.changes)
      console.log(`${c.action === 'create' ? 'create' : c.action === 'delete' ? 'delete' : 'force'} ${c.path}`);
    console.log(scaffoldReport(prepared, started));
  } finally {
    release();
  }
}

/** The Yeoman generators' entry files (app/index.js, regen/index.js), absolute. */
export interface GeneratorEntries {
  readonly app: string;
  readonly regen: string;
}

async function viaYeoman(argv: readonly string[], entries: GeneratorEntries): Promise<void> {
  const namespace = argv[0] === 'regen' ? 'raf-op:regen' : 'raf-op:app';
  const args = argv[0] === 'regen' ? argv.slice(1) : [...argv];
  const { createEnv } = await import('yeoman-environment');
  const env = createEnv();
  env.register(entries.app, { namespace: 'raf-op:app' });
  env.register(entries.regen, { namespace: 'raf-op:regen' });
  await env.execute(namespace, args);
}

/**
 * Runs one scaffold command line in the current directory; resolves to the exit code. A refusal (a bad flag, an
 * unknown option, a spec that does not validate) prints its message, never a stack trace.
 */
export async function runScaffold(argv: readonly string[], entries: GeneratorEntries): Promise<number> {
  const req = directRequest(argv);
  try {
    await (req ? direct(process.cwd(), req) : viaYeoman(argv, entries));
    return 0;
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    return 1;
  }
}
