// The writer: virtual tree → prettier → a plan (create/update/delete) → disk all at once, or --check/--dry-run.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import type { EmittedFile } from './emit/files.ts';
import { generatedDirs } from './layout.ts';
import type { StubFile } from './emit/stubs.ts';

export { GENERATED_DIRS } from './layout.ts';

export interface Change {
  readonly path: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly kind: 'generated' | 'stub';
  readonly content?: string;
}

let prettierOptions: prettier.Options | undefined;

/**
 * Prettier is most of a regeneration's time, and most files come out the same as last time, so
 * formatted text is cached by a hash of (prettier version, options, file type, unformatted text).
 * The cache lives beside the generator's own node_modules, where every root it generates shares it.
 */
const CACHE_FILE = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/raf-op/format.json');
let cache: Map<string, string> | undefined;
const used = new Set<string>();
let cacheDirty = false;

function loadCache(): Map<string, string> {
  if (!cache) {
    try {
      cache = new Map(Object.entries(JSON.parse(readFileSync(CACHE_FILE, 'utf8')) as Record<string, string>));
    } catch {
      cache = new Map();
    }
  }
  return cache;
}

/** Writes the cache back, keeping only what recent runs used once it grows large. */
export function saveFormatCache(): void {
  if (!cache || !cacheDirty) return;
  const keep = cache.size > 20_000 ? [...cache].filter(([k]) => used.has(k)) : [...cache];
  try {
    mkdirSync(dirname(CACHE_FILE), { recursive: true });
    writeFileSync(CACHE_FILE, JSON.stringify(Object.fromEntries(keep)));
    cacheDirty = false;
  } catch {
    // A read-only install still generates correctly, only slower.
  }
}

export async function format(root: string, file: EmittedFile): Promise<string> {
  prettierOptions ??= (await prettier.resolveConfig(join(root, 'package.json'))) ?? {};
  const key = createHash('sha256')
    .update(`${prettier.version}\0${JSON.stringify(prettierOptions)}\0${extname(file.path)}\0${file.content}`)
    .digest('base64url');
  const entries = loadCache();
  used.add(key);
  const hit = entries.get(key);
  if (hit !== undefined) return hit;
  const formatted = await prettier.format(file.content, { ...prettierOptions, filepath: join(root, file.path) });
  entries.set(key, formatted);
  cacheDirty = true;
  return formatted;
}

/** Compares the virtual tree with the disk; reads the disk, writes nothing. */
export async function plan(
  root: string,
  generated: readonly EmittedFile[],
  stubs: readonly StubFile[],
): Promise<Change[]> {
  const changes: Change[] = [];
  const wanted = new Set<string>();
  const formatted = await Promise.all(generated.map((f) => format(root, f)));
  generated.forEach((f, i) => {
    wanted.add(f.path);
    const onDisk = readIfExists(join(root, f.path));
    if (onDisk === undefined)
      changes.push({ path: f.path, action: 'create', kind: 'generated', content: formatted[i] });
    else if (onDisk !== formatted[i])
      changes.push({ path: f.path, action: 'update', kind: 'generated', content: formatted[i] });
  });
  for (const dir of generatedDirs(root)) {
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
  saveFormatCache();
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
