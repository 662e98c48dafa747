// The writer: virtual tree → prettier → a plan (create/update/delete) → disk all at once, or --check/--dry-run.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as prettier from 'prettier';
import type { EmittedFile } from './emit/files.ts';
import { GENERATED, TEST_GENERATED } from './emit/files.ts';
import type { StubFile } from './emit/stubs.ts';

/** Folders that hold nothing but generated files; anything else found there is "extra". */
export const GENERATED_DIRS = [GENERATED, TEST_GENERATED];

export interface Change {
  readonly path: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly kind: 'generated' | 'stub';
  readonly content?: string;
}

let prettierOptions: prettier.Options | undefined;

export async function format(root: string, file: EmittedFile): Promise<string> {
  prettierOptions ??= (await prettier.resolveConfig(join(root, 'package.json'))) ?? {};
  return prettier.format(file.content, { ...prettierOptions, filepath: join(root, file.path) });
}

/** Compares the virtual tree with the disk; reads the disk, writes nothing. */
export async function plan(root: string, generated: readonly EmittedFile[], stubs: readonly StubFile[]): Promise<Change[]> {
  const changes: Change[] = [];
  const wanted = new Set<string>();
  const formatted = await Promise.all(generated.map((f) => format(root, f)));
  generated.forEach((f, i) => {
    wanted.add(f.path);
    const onDisk = readIfExists(join(root, f.path));
    if (onDisk === undefined) changes.push({ path: f.path, action: 'create', kind: 'generated', content: formatted[i] });
    else if (onDisk !== formatted[i]) changes.push({ path: f.path, action: 'update', kind: 'generated', content: formatted[i] });
  });
  for (const dir of GENERATED_DIRS) {
    for (const path of listFiles(root, dir)) {
      if (!wanted.has(path)) changes.push({ path, action: 'delete', kind: 'generated' });
    }
  }
  for (const s of stubs) {
    const onDisk = readIfExists(join(root, s.path));
    if (onDisk === undefined) {
      changes.push({ path: s.path, action: 'create', kind: 'stub', content: await format(root, s) });
    } else if (s.update) {
      const updated = s.update(onDisk);
      if (updated !== onDisk) {
        const pretty = await format(root, { ...s, content: updated });
        if (pretty !== onDisk) changes.push({ path: s.path, action: 'update', kind: 'stub', content: pretty });
      }
    }
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * Applies a plan: every new content is written to a temporary file first, and only when all
 * of them exist are they renamed into place, so a failure midway leaves the tree as it was.
 */
export function apply(root: string, changes: readonly Change[]): void {
  const staged: [string, string][] = [];
  try {
    for (const c of changes) {
      if (c.action === 'delete') continue;
      const target = join(root, c.path);
      mkdirSync(dirname(target), { recursive: true });
      const tmp = `${target}.raf-op-tmp`;
      writeFileSync(tmp, c.content!);
      staged.push([tmp, target]);
    }
  } catch (e) {
    for (const [tmp] of staged) rmSync(tmp, { force: true });
    throw e;
  }
  for (const [tmp, target] of staged) renameSync(tmp, target);
  for (const c of changes) if (c.action === 'delete') rmSync(join(root, c.path));
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function listFiles(root: string, dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(abs);
  return out;
}
