// The pipeline end to end: load every spec → validate and build the model → emit → plan → write.

import { join } from 'node:path';
import { emitAll } from './emit/index.ts';
import { buildModel } from './spec/build.ts';
import { SpecErrors, type SpecError } from './spec/errors.ts';
import { checkSpecLayout, loadSpecFile, type RawSpec } from './spec/load.ts';
import type { Model } from './spec/model.ts';
import { specFiles } from './layout.ts';
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

/** Loads and validates every spec; throws SpecErrors with all problems found. */
export function loadModel(root: string, overrides: ReadonlyMap<string, string> = new Map()): Model {
  const errors: SpecError[] = checkSpecLayout(root);
  const raws: RawSpec[] = [];
  const files = new Set([...specFiles(root), ...overrides.keys()]);
  for (const file of [...files].sort()) {
    const { spec, errors: e } = loadSpecFile(join(root, file), file, overrides.get(file));
    errors.push(...e);
    if (spec) raws.push(spec);
  }
  const { model, errors: semantic } = buildModel(raws);
  errors.push(...semantic);
  if (errors.length) throw new SpecErrors(errors);
  return model;
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
  const { generated, stubs } = emitAll(model);
  opts.onPhase?.(`${generated.length + stubs.length} files emitted`);
  const changes = await plan(root, generated, stubs);
  opts.onPhase?.(`formatted and compared with the tree (${changes.length} changed)`);
  if (!opts.check && changes.length) {
    apply(root, changes);
    opts.onPhase?.(`${changes.length} files written`);
  }
  return {
    model,
    changes,
    files: generated.length + stubs.length,
    outputs: [...generated, ...stubs].map((f) => f.path),
    written: !opts.check && changes.length > 0,
  };
}
