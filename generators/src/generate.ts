// The pipeline end to end: load every spec → validate and build the model → emit → plan → write.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinNames, builtinSpecs, collisions, unsupportedDialects } from './spec/builtin.ts';
import { emitAll } from './emit/index.ts';
import { ownModel } from './emit/package.ts';
import { buildModel } from './spec/build.ts';
import { SpecErrors, type SpecError } from './spec/errors.ts';
import { loadSpecText, type RawSpec } from './spec/load.ts';
import type { Model } from './spec/model.ts';
import { specFiles, targetOf } from './layout.ts';
import { apply, plan, type Change } from './write.ts';

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
  const files = new Set([...specFiles(root), ...overrides.keys()]);
  const texts = new Map(
    [...files].map((file) => [file, overrides.get(file) ?? readFileSync(join(root, file), 'utf8')]),
  );
  return modelFromSpecTexts(root, texts);
}

/** `loadModel` over spec texts in memory (the review tools load a git ref's specs this way). */
export function modelFromSpecTexts(root: string, texts: ReadonlyMap<string, string>): Model {
  const errors: SpecError[] = [];
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
  if (!repo) errors.push(...collisions(raws, builtins));
  const { model, errors: semantic } = buildModel([...builtins, ...raws]);
  errors.push(...semantic);
  if (!repo) errors.push(...unsupportedDialects(model, raws));
  if (errors.length) throw new SpecErrors(errors);
  if (repo) return { ...model, sources };
  return { ...model, builtin: builtinNames(model) };
}

export async function generate(root: string, opts: GenerateOptions = {}): Promise<GenerateResult> {
  const model = loadModel(root);
  opts.onPhase?.(`${model.ops.length} specs loaded and checked`);
  const { generated, stubs } = emitAll(model);
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
