// One scaffold from request to plan, shared by the Yeoman generator (app-generator.ts) and the direct command line
// (cli.ts): read the tree, ask or take each answer, validate and plan, and keep the answers of a refused one.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SpecErrors } from '../spec/errors.ts';
import type { ScaffoldAnswers } from './answers.ts';
import { askAll, type Asker } from './ask.ts';
import { formatChecklist } from './checklist.ts';
import { ScaffoldError } from './names.ts';
import { answersSoFarProblem, checkTarget, planScaffold, scaffoldContext, type ScaffoldPlan } from './scaffold.ts';

/** Where a refused scaffold keeps its answers for `--resume` (gitignored). */
export const RESUME_FILE = '.raf-op/scaffold-answers.json';

export interface ScaffoldRequest {
  /** Answers given as flags, by flag name (`NAME` for the op). */
  readonly flags: Readonly<Record<string, string | undefined>>;
  readonly yes: boolean;
  readonly resume: boolean;
  readonly force: boolean;
}

export interface Prepared {
  readonly answers: ScaffoldAnswers;
  readonly plan: ScaffoldPlan;
}

/** Asks (or takes) every answer and plans the scaffold; throws a ScaffoldError (a refusal) when it cannot be done. */
export async function prepareScaffold(root: string, req: ScaffoldRequest, ask: Asker): Promise<Prepared> {
  // An unsafe name is refused before the tree is even read.
  const name = req.flags.NAME;
  if (name !== undefined) {
    try {
      checkTarget(undefined, name.trim(), true);
    } catch (e) {
      throw refusal(e);
    }
  }
  let ctx;
  try {
    ctx = scaffoldContext(root);
  } catch (e) {
    throw refusal(e);
  }
  const flags = { ...req.flags };
  const resumeFile = join(root, RESUME_FILE);
  if (req.resume) {
    if (!existsSync(resumeFile)) throw refusal(new ScaffoldError(`--resume: no ${RESUME_FILE} to resume from`));
    // Kept answers answer their questions; flags given now replace them.
    const kept = JSON.parse(readFileSync(resumeFile, 'utf8')) as Record<string, string>;
    for (const [k, v] of Object.entries(kept)) flags[k] ??= v;
  }
  const record: Record<string, string> = {};
  let prepared: Prepared;
  try {
    const answers = await askAll(
      ctx,
      {
        flags,
        yes: req.yes,
        checkOp: (op) => checkTarget(ctx, op, req.force),
        record,
        // Only prompted answers: with flags and --yes nothing is lost, and the end's validation names the field.
        checkSoFar: (d, answered) => answersSoFarProblem(root, ctx, d, answered),
      },
      ask,
    );
    prepared = { answers, plan: await planScaffold(root, ctx, answers, { force: req.force }) };
  } catch (e) {
    // Every answer given so far is kept, so fixing the one that failed does not mean answering all again.
    // Flags after the refused one were never reached: they are kept too (the refused one as given; the flag that
    // fixes it, given with --resume, replaces it).
    const given = Object.fromEntries(Object.entries(flags).filter((kv): kv is [string, string] => kv[1] !== undefined));
    const kept = { ...given, ...record };
    if (Object.keys(kept).length && (e instanceof ScaffoldError || e instanceof SpecErrors)) {
      mkdirSync(dirname(resumeFile), { recursive: true });
      writeFileSync(resumeFile, `${JSON.stringify(kept, null, 2)}\n`);
      throw refusal(
        e,
        `your answers are kept in ${RESUME_FILE}: fix the one named above with its flag and add --resume`,
      );
    }
    throw refusal(e);
  }
  if (existsSync(resumeFile)) rmSync(resumeFile);
  return prepared;
}

/** What a finished scaffold prints: the checklist, where the spec is, how to run its tests. */
export function scaffoldReport(prepared: Prepared, startedMs: number): string {
  const { answers, plan } = prepared;
  return [
    '',
    formatChecklist(answers.op, plan.checklist),
    '',
    ...plan.together.flatMap((t) => [
      `Scaffolded with it (its gradient calls it): ${t.specPath}`,
      formatChecklist(t.op, t.checklist),
      '',
    ]),
    `Spec: ${plan.specPath}. Run its tests: npx vitest run test/generated/${answers.op}`,
    `raf-op scaffold: ${plan.changes.length} files, ${((performance.now() - startedMs) / 1000).toFixed(1)} s`,
  ].join('\n');
}

/** Refusals print their message (and every spec error with file:line:col); nothing has been written yet. */
export function refusal(e: unknown, kept?: string): unknown {
  const tail = kept ? `\n${kept}` : '';
  if (e instanceof SpecErrors) {
    return new ScaffoldError(
      `the spec for this op does not validate; nothing was written:\n${e.errors.map(String).join('\n')}${tail}`,
    );
  }
  if (e instanceof ScaffoldError && !e.message.startsWith('raf-op: '))
    return new ScaffoldError(`raf-op: ${e.message}\nnothing was written.${tail}`);
  return e;
}
