// Spec texts at a git ref (read with `git ls-tree`/`git show`, never checked out) or in the working tree,
// and the model built from such texts: the two sides every review compares.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { modelFromSpecTexts, SPECS_DIR, specFiles } from '../generate.ts';
import { targetOf } from '../layout.ts';
import { buildModel } from '../spec/build.ts';
import { SpecErrors, type SpecError } from '../spec/errors.ts';
import { loadSpecText, type RawSpec } from '../spec/load.ts';
import type { Model } from '../spec/model.ts';

/** Repository-relative path → text, for every spec file on one side. */
export type SpecTexts = ReadonlyMap<string, string>;

function git(root: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A review that cannot start (a ref that is not a commit): the CLI prints its message and hint, no stack trace. */
export class ReviewError extends Error {
  override name = 'ReviewError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Fails with a message naming the ref (and what to do) rather than a stack trace. */
export function resolveRef(root: string, ref: string): string {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).trim();
  } catch {
    throw new ReviewError(
      `'${ref}' is not a commit in ${root}`,
      'name a branch, tag or commit with --against (git log --oneline lists commits)',
    );
  }
}

/**
 * Whether `ref` is HEAD and there is nothing before it: the root is in no git repository, or its repository has no
 * commit yet. A review against it compares with an empty base (every op is added).
 */
export function isEmptyBase(root: string, ref: string): boolean {
  if (ref !== 'HEAD') return false;
  try {
    git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    return false;
  } catch {
    // No HEAD commit: an unborn branch, or not a repository at all (git's exit status is the same; either way
    // there is no earlier version of any spec).
    return true;
  }
}

/** Every `specs/**.yaml` at a ref. */
export function specsAtRef(root: string, ref: string): Map<string, string> {
  const commit = resolveRef(root, ref);
  const listing = git(root, ['ls-tree', '-r', '--name-only', '-z', commit, '--', `${SPECS_DIR}/`]);
  const texts = new Map<string, string>();
  for (const path of listing
    .split('\0')
    .filter((p) => p.endsWith('.yaml'))
    .sort()) {
    texts.set(path, git(root, ['show', `${commit}:${path}`]));
  }
  return texts;
}

/** One file at a ref, or undefined where the ref lacks it. */
export function fileAtRef(root: string, ref: string, path: string): string | undefined {
  const commit = resolveRef(root, ref);
  try {
    return git(root, ['show', `${commit}:${path}`]);
  } catch {
    return undefined;
  }
}

export function specsInWorkingTree(root: string): Map<string, string> {
  return new Map(specFiles(root).map((p) => [p, readFileSync(join(root, p), 'utf8')]));
}

export function fileInWorkingTree(root: string, path: string): string | undefined {
  const abs = join(root, path);
  return existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
}

/**
 * The same load → validate → build pipeline as `gen`, over texts in memory; throws SpecErrors. Given the root of an
 * operator author's package, the installed runtime's ops join the model as they do for `gen`.
 */
export function modelFromTexts(texts: SpecTexts, root?: string): Model {
  if (root && targetOf(root) === 'package') return modelFromSpecTexts(root, texts);
  const errors: SpecError[] = [];
  const raws: RawSpec[] = [];
  for (const [file, text] of [...texts].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { spec, errors: e } = loadSpecText(file, text);
    errors.push(...e);
    if (spec) raws.push(spec);
  }
  const { model, errors: semantic } = buildModel(raws);
  errors.push(...semantic);
  if (errors.length) throw new SpecErrors(errors);
  return model;
}

/** Labels a side's spec errors, so "the base does not build" is not mistaken for the edit's fault. */
export function modelOrExplain(texts: SpecTexts, side: string, root?: string): Model {
  try {
    return modelFromTexts(texts, root);
  } catch (e) {
    if (e instanceof SpecErrors)
      throw new SpecErrors(
        e.errors.map((err) =>
          Object.assign(Object.create(Object.getPrototypeOf(err)), err, { message: `[${side}] ${err.message}` }),
        ),
      );
    throw e;
  }
}
