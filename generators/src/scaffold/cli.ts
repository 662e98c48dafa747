// `npm run new -- NAME [flags]`: the `yo raf-op` generator without yo. With --yes nothing is asked, so the scaffold
// runs directly (same answers, validation, plan and checklist as the generator, written all or nothing by the writer):
// Yeoman and its prompts, seconds of loading, are only needed to ask. Otherwise it runs the generator through
// yeoman-environment, skipping yo's root check, which drops a root process (a CI container) to uid 1000 and then
// cannot read /root or write the checkout. `cli.ts regen [--check]` runs the sub-generator, as `yo raf-op:regen` does.

import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { QUESTIONS } from './questions.ts';

const argv = process.argv.slice(2);
/** One flag per question (`--grad` answers both the kind and the formulas). */
const FLAG_NAMES = [...new Set(QUESTIONS.filter((q) => q.flag !== 'NAME').map((q) => q.flag))];

/** The --yes request, or undefined when the generator must run (questions to ask, --help, regen, unknown flags). */
function directRequest(): { flags: Record<string, string | undefined>; resume: boolean; force: boolean } | undefined {
  if (argv[0] === 'regen') return undefined;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
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

async function direct(req: NonNullable<ReturnType<typeof directRequest>>): Promise<void> {
  const started = performance.now();
  const root = process.cwd();
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

async function viaYeoman(): Promise<void> {
  const GENERATORS = { 'raf-op:app': '../../app/index.js', 'raf-op:regen': '../../regen/index.js' };
  const namespace = argv[0] === 'regen' ? 'raf-op:regen' : 'raf-op:app';
  const args = argv[0] === 'regen' ? argv.slice(1) : argv;
  const { createEnv } = await import('yeoman-environment');
  const env = createEnv();
  for (const [ns, path] of Object.entries(GENERATORS))
    env.register(fileURLToPath(new URL(path, import.meta.url)), { namespace: ns });
  await env.execute(namespace, args);
}

const req = directRequest();
(req ? direct(req) : viaYeoman()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
