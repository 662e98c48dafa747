// The pipeline end to end: load every spec → validate and build the model → emit → plan → write.

import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  builtinNames,
  builtinSpecs,
  checkOverrides,
  collisions,
  overrideInRepo,
  takeOverrides,
  unsupportedDialects,
} from './spec/builtin.ts';
import { emitAll } from './emit/index.ts';
import { releasedOpIds } from './emit/op-ids.ts';
import { ownModel } from './emit/package.ts';
import { buildModel } from './spec/build.ts';
import { SpecErrors, type SpecError } from './spec/errors.ts';
import { checkSpecLayout, loadSpecText, readSpecText, type RawSpec } from './spec/load.ts';
import type { Model } from './spec/model.ts';
import { specFiles, targetOf } from './layout.ts';
import { acquireLock, apply, GenStateError, lockHolder, pendingState, plan, recover, type Change } from './write.ts';

export { SPECS_DIR, specFiles } from './layout.ts';

export interface GenerateOptions {
  /** Compare only; nothing is written. */
  readonly check?: boolean;
  /** Called as each phase ends (specs checked, files emitted, formatted and compared, written), for progress lines. */
  readonly onPhase?: (done: string) => void;
}

export interface GenerateResult {
  readonly model: Model;
  readonly changes: readonly Change[];
  readonly files: number;
  /** Every path the run generated or owns a stub at, changed or not. */
  readonly outputs: readonly string[];
  readonly written: boolean;
}

/**
 * Loads and validates every spec; throws SpecErrors with all problems found. In a user's package the installed
 * runtime's specs join the model too (so gradients, oracles and `schema:` may name its ops), marked `builtin`.
 */
export function loadModel(root: string, overrides: ReadonlyMap<string, string> = new Map()): Model {
  const errors: SpecError[] = checkSpecLayout(root);
  const files = new Set([...specFiles(root), ...overrides.keys()]);
  const texts = new Map<string, string>();
  for (const file of files) {
    const override = overrides.get(file);
    const read = override !== undefined ? { text: override, errors: [] } : readSpecText(join(root, file), file);
    errors.push(...read.errors);
    if (read.text !== undefined) texts.set(file, read.text);
  }
  return modelFromSpecTexts(root, texts, errors);
}

/** `loadModel` over spec texts in memory (the review tools load a git ref's specs this way). */
export function modelFromSpecTexts(
  root: string,
  texts: ReadonlyMap<string, string>,
  earlier: readonly SpecError[] = [],
): Model {
  const errors: SpecError[] = [...earlier];
  const raws: RawSpec[] = [];
  const sources: { file: string; text: string }[] = [];
  for (const [file, text] of [...texts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { spec, errors: e } = loadSpecText(file, text);
    errors.push(...e);
    if (spec) raws.push(spec);
    sources.push({ file, text });
  }
  const repo = targetOf(root) === 'repo';
  // A package with no specs yet (just made by `raf-op init`) needs no built-ins: its registry is empty.
  const builtins = repo || !raws.length ? [] : builtinSpecs(root);
  const overrideSpecs = takeOverrides(raws);
  // In this repository an op is changed in its own spec; overrides: is a package's way to add a kernel to one.
  if (repo) errors.push(...overrideSpecs.map(overrideInRepo));
  if (!repo) errors.push(...collisions(raws, builtins));
  const { model, errors: semantic } = buildModel([...builtins, ...raws]);
  errors.push(...semantic);
  if (!repo) errors.push(...unsupportedDialects(model, raws));
  const packageName = repo ? undefined : packageNameOf(root);
  const checked = !repo && overrideSpecs.length ? checkOverrides(overrideSpecs, model, packageName!) : undefined;
  if (checked) errors.push(...checked.errors);
  if (errors.length) throw new SpecErrors(errors);
  if (repo) return { ...model, sources };
  return {
    ...model,
    builtin: builtinNames(model),
    packageName,
    ...(checked?.overrides.length ? { overrides: checked.overrides } : {}),
  };
}

/** The npm name in a package's package.json (the folder's name when it has none). */
function packageNameOf(root: string): string {
  try {
    const name = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown }).name;
    if (typeof name === 'string' && name) return name;
  } catch {
    // no package.json: the folder's name
  }
  return basename(root);
}

export async function generate(root: string, opts: GenerateOptions = {}): Promise<GenerateResult> {
  // A read-only run reports a run under way or interrupted instead of comparing a tree in mid-change.
  if (opts.check) {
    const holder = lockHolder(root);
    if (holder)
      throw new GenStateError(`a raf-op gen is running in ${root} (pid ${holder.pid}); check again when it is done`);
    const pending = pendingState(root);
    if (pending)
      throw new GenStateError(`${pending}.\nFix with: npm run gen (it completes or rolls back the interrupted run)`);
    return run(root, opts);
  }
  const release = acquireLock(root);
  try {
    const recovered = recover(root);
    if (recovered) console.error(`raf-op gen: ${recovered}`);
    return await run(root, opts);
  } finally {
    release();
  }
}

async function run(root: string, opts: GenerateOptions): Promise<GenerateResult> {
  const model = loadModel(root);
  opts.onPhase?.(`${model.ops.length} specs loaded and checked`);
  // The op-id lock keeps a deleted op's id only when it was committed (git HEAD's lock names it).
  const { generated, stubs } = emitAll(model, { releasedOpIds: () => releasedOpIds(root) });
  opts.onPhase?.(`${generated.length + stubs.length} files emitted`);
  const changes = await plan(root, generated, stubs);
  opts.onPhase?.(`formatted and compared with the tree (${changes.length} changed)`);
  if (!opts.check && changes.length) {
    apply(root, changes);
    opts.onPhase?.(`${changes.length} files written`);
  }
  return {
    // In a user's package: the user's ops only (the built-in ones were there for reference).
    model: ownModel(model),
    changes,
    files: generated.length + stubs.length,
    outputs: [...generated, ...stubs].map((f) => f.path),
    written: !opts.check && changes.length > 0,
  };
}
