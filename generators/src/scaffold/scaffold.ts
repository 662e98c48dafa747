// A scaffold, planned before anything is written: refuse unsafe names, validate the new spec with the
// whole model, then compute every file change (spec, generated bindings, stubs) against the disk.

import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { join, relative, resolve, sep } from 'node:path';
import type { EmittedFile } from '../emit/files.ts';
import { emitAll } from '../emit/index.ts';
import type { StubFile } from '../emit/stubs.ts';
import { loadModel, SPECS_DIR } from '../generate.ts';
import { targetOf } from '../layout.ts';
import type { Model } from '../spec/model.ts';
import { plan, type Change } from '../write.ts';
import type { ScaffoldAnswers } from './answers.ts';
import { checklist, type ChecklistItem } from './checklist.ts';
import { calledOps, missingBackwardOps } from './backward.ts';
import { checkName, ScaffoldError } from './names.ts';
import { argsOf, finish, QUESTIONS, type Draft, type ScaffoldContext } from './questions.ts';
import { SpecErrors } from '../spec/errors.ts';
import { renderSpec, specPathOf } from './spec-text.ts';

export interface ScaffoldPlan {
  readonly specPath: string;
  readonly specText: string;
  /** Every change, the spec's first; generated files, new stubs and stub signature updates follow. */
  readonly changes: readonly Change[];
  readonly model: Model;
  readonly checklist: readonly ChecklistItem[];
  /** Backward ops its gradient calls that no spec defined: scaffolded together with it (backward.ts). */
  readonly together: readonly {
    readonly op: string;
    readonly specPath: string;
    readonly checklist: readonly ChecklistItem[];
  }[];
}

export interface ScaffoldOptions {
  /** Replace an op that a spec already defines (its spec is rewritten in place). */
  readonly force?: boolean;
}

/**
 * A new op changes only its own files and the aggregates (registries, indexes, docs), so only those are
 * formatted and compared: formatting every generated file is most of `npm run gen`'s time. Other files
 * are left as they are (`npm run gen -- --check` reports a tree that was stale before the scaffold).
 */
async function planNewOp(
  root: string,
  specPaths: readonly string[],
  generated: readonly EmittedFile[],
  stubs: readonly StubFile[],
): Promise<Change[]> {
  // One op's spec (`specs/nn/softmax.yaml`), not an aggregate (`specs/**/*.yaml`, `specs/nn/*.yaml`).
  const ownSpec = (source: string) => /^specs\/[a-z0-9_]+\/[a-z0-9_]+\.yaml$/.test(source.split(' ')[0]!);
  const mine = (f: EmittedFile) =>
    !ownSpec(f.source) || specPaths.some((p) => f.source.startsWith(`${p} `) || f.source === p);
  // Planning a subset would mark every other generated file as extra; a new op deletes nothing.
  return plan(root, generated.filter(mine), stubs.filter(mine), { deletes: false });
}

/** The repository's model before the scaffold; a broken tree is refused before any question is asked. */
export function scaffoldContext(root: string): ScaffoldContext {
  // An operator author's package (made by `raf-op init`) needs only specs/; this repository also has the schema.
  const repo = targetOf(root) === 'repo';
  if (
    !existsSync(join(root, SPECS_DIR)) ||
    (repo && !existsSync(join(root, 'generators/schema/op-spec.schema.json')))
  ) {
    throw new ScaffoldError(
      `${root} is not a raf-op repository or package (no specs/${repo ? ' or generators/schema/' : ''})`,
      'run yo raf-op from the root of a package made by `npx raf-op init NAME`, or of the raf-op repository',
    );
  }
  return { model: loadModel(root) };
}

/** Refuses an op name that is unsafe, or that shadows an existing op without `force`. */
export function checkTarget(ctx: ScaffoldContext | undefined, op: string, force: boolean): void {
  checkName(op, 'op');
  if (!ctx) return; // before the tree is read: the name alone
  const existing = ctx.model.ops.find((o) => o.name === op);
  if (existing?.derivedFrom) {
    throw new ScaffoldError(
      `op '${op}' is the derived gradient of '${existing.derivedFrom}' (${existing.file})`,
      `choose another name, or give ${existing.derivedFrom} a grad: section`,
    );
  }
  if (existing && !force) {
    throw new ScaffoldError(
      `op '${op}' already exists (${existing.file})`,
      'choose another name, or pass --force to replace its spec (hand-written kernels and gradients are kept)',
    );
  }
}

/** The spec the answers make; --force keeps the fields no question asks about from the spec it replaces. */
export async function specTextOf(root: string, ctx: ScaffoldContext, answers: ScaffoldAnswers): Promise<string> {
  const abs = resolve(root, specPathOf(answers));
  const args = argsOf(answers, ctx);
  const tensors = args.filter((a) => a.type.startsWith('Tensor')).map((a) => a.name);
  const attrs = args.filter((a) => !a.type.startsWith('Tensor')).map((a) => a.name);
  const previous = existsSync(abs) ? (parseYaml(readFileSync(abs, 'utf8')) as Record<string, unknown>) : undefined;
  return renderSpec(root, answers, tensors, attrs, previous ?? undefined);
}

/**
 * The spec errors an answer causes, as soon as it is given: the questions not answered yet take their defaults, the
 * spec is validated with every other one (as at the end), and only errors in fields whose questions are all answered
 * count. Returns the message to ask again with, or undefined when the answers so far are fine.
 */
export async function answersSoFarProblem(
  root: string,
  ctx: ScaffoldContext,
  d: Draft,
  answered: ReadonlySet<string>,
): Promise<string | undefined> {
  const draft = structuredClone(d);
  for (const q of QUESTIONS) {
    if (answered.has(q.name) || (q.when && !q.when(draft, ctx))) continue;
    try {
      q.parse(q.default(draft, ctx), draft, ctx);
    } catch {
      return undefined; // a later default does not apply yet: the end's validation covers it
    }
  }
  const answers = finish(draft, ctx);
  const specPath = specPathOf(answers);
  let text: string;
  try {
    text = await specTextOf(root, ctx, answers);
    loadModel(root, new Map([[specPath, text]]));
    return undefined;
  } catch (e) {
    if (!(e instanceof SpecErrors)) return undefined;
    // Which top-level field each line of the spec belongs to.
    const fieldAt: string[] = [];
    let field = '';
    text!.split('\n').forEach((line, i) => {
      field = /^([a-z_]+):/.exec(line)?.[1] ?? field;
      fieldAt[i + 1] = field;
    });
    const complete = (f: string) =>
      (FIELD_QUESTIONS[f] ?? []).every((n) => {
        const q = QUESTIONS.find((x) => x.name === n)!;
        return answered.has(n) || (q.when !== undefined && !q.when(draft, ctx));
      });
    const mine = e.errors.filter((err) => err.loc.file === specPath && complete(fieldAt[err.loc.line] ?? ''));
    return mine.length ? mine.map((err) => String(err)).join('\n') : undefined;
  }
}

/** Which questions write each top-level field of the spec. */
const FIELD_QUESTIONS: Readonly<Record<string, readonly string[]>> = {
  op: ['op'],
  doc: ['doc'],
  compute: ['compute'],
  schema: ['schema'],
  args: ['args'],
  out: ['out', 'outputs'],
  grad: ['gradKind', 'grad', 'saves'],
  fusion: ['fusion'],
  cast: ['cast'],
  relay: ['relay'],
  onnx: ['onnx'],
  dialects: ['dialects'],
  tests: ['shapes', 'grid', 'domain'],
};

export async function planScaffold(
  root: string,
  ctx: ScaffoldContext,
  answers: ScaffoldAnswers,
  opts: ScaffoldOptions = {},
): Promise<ScaffoldPlan> {
  checkTarget(ctx, answers.op, opts.force ?? false);
  checkName(answers.category, 'category');
  const existing = ctx.model.ops.find((o) => o.name === answers.op);
  if (existing && existing.category !== answers.category) {
    throw new ScaffoldError(
      `op '${answers.op}' lives in ${existing.file}, not under specs/${answers.category}/`,
      `pass --category ${existing.category}, or move the spec by hand`,
    );
  }
  const specPath = specPathOf(answers);
  // Belt and braces: whatever the names, the spec lands inside specs/.
  const abs = resolve(root, specPath);
  if (!abs.startsWith(resolve(root, SPECS_DIR) + sep)) throw new ScaffoldError(`${specPath} is outside ${SPECS_DIR}/`);

  const specText = await specTextOf(root, ctx, answers);

  // The same validation `npm run gen` does, with the new spec in place: a bad answer throws
  // SpecErrors naming the spec's line and column, and nothing has been written.
  // Backward ops its gradient calls that no spec defines yet are scaffolded with it.
  const together: { op: string; specPath: string; specText: string }[] = [];
  for (const b of missingBackwardOps(answers, ctx)) {
    const tensorArgs = b.args.filter((a) => a.type.startsWith('Tensor')).map((a) => a.name);
    const attrArgs = b.args.filter((a) => !a.type.startsWith('Tensor')).map((a) => a.name);
    together.push({ op: b.op, specPath: specPathOf(b), specText: await renderSpec(root, b, tensorArgs, attrArgs) });
  }
  const model = loadModel(
    root,
    new Map([[specPath, specText], ...together.map((t) => [t.specPath, t.specText] as const)]),
  );
  const { generated, stubs } = emitAll(model);
  // A backward op's generated test goes through its forward's gradient: scaffolding the forward changes it too.
  const called = calledOps(answers).flatMap((name) => model.ops.find((o) => o.name === name)?.file ?? []);
  const owned = [specPath, ...together.map((t) => t.specPath), ...called];
  const changes = opts.force ? await plan(root, generated, stubs) : await planNewOp(root, owned, generated, stubs);
  const onDisk = existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
  const specChanges: Change[] = [
    ...(onDisk === specText
      ? []
      : [
          {
            path: specPath,
            action: onDisk === undefined ? 'create' : 'update',
            kind: 'stub',
            content: specText,
          } as const,
        ]),
    ...together.map((t) => ({ path: t.specPath, action: 'create', kind: 'stub', content: t.specText }) as const),
  ];
  return {
    specPath: relative(root, abs).split(sep).join('/'),
    specText,
    changes: [...specChanges, ...changes],
    model,
    checklist: checklist(model, answers.op, generated, stubs, root),
    together: together.map((t) => ({
      op: t.op,
      specPath: t.specPath,
      checklist: checklist(model, t.op, generated, stubs, root),
    })),
  };
}
