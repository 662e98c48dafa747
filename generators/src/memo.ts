// Persistent memos of the pipeline's pure, costly steps (ts-morph printing, prettier, stub signature updates, a
// kernel's names, a spec's parsed data): output by a hash of everything the output depends on. What makes a
// regeneration after one spec edit cost about one op's work, and a scaffold's regeneration nearly free.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Beside the generator's own node_modules, where every root it generates shares it (gitignored, disposable). */
export const MEMO_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/raf-op');
/** RAF_OP_MEMO_DIR moves the memos (tests start from an empty one); call resetMemos() after changing it. */
const memoDir = () => process.env.RAF_OP_MEMO_DIR || MEMO_DIR;

export const sha = (...parts: readonly (string | Buffer)[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('base64url');
};

/** A hash of a module's own source: a memo keyed with it forgets everything when that code changes. */
export function sourceSalt(moduleUrl: string): string {
  try {
    return sha(readFileSync(fileURLToPath(moduleUrl)));
  } catch {
    return 'unknown';
  }
}

const all: Memo[] = [];

/**
 * One memo file: key → text. Loaded on first use; `saveMemos()` writes back those that changed, keeping only the
 * entries this run used once a file holds more than `limit` (a few full regenerations' worth), so it stays small
 * enough to load fast. Without a writable cache every run computes everything.
 */
export class Memo {
  private entries: Map<string, string> | undefined;
  private readonly used = new Set<string>();
  private dirty = false;
  hits = 0;
  misses = 0;

  constructor(
    readonly name: string,
    private readonly limit = 6_000,
  ) {
    all.push(this);
  }

  private get file(): string {
    return join(memoDir(), `${this.name}.json`);
  }

  private load(): Map<string, string> {
    if (!this.entries) {
      try {
        this.entries = new Map(Object.entries(JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>));
      } catch {
        this.entries = new Map();
      }
    }
    return this.entries;
  }

  get(key: string): string | undefined {
    if (memoDisabled()) {
      this.misses++;
      return undefined;
    }
    const v = this.load().get(key);
    this.used.add(key);
    if (v === undefined) this.misses++;
    else this.hits++;
    return v;
  }

  set(key: string, value: string): void {
    if (memoDisabled()) return;
    this.load().set(key, value);
    this.used.add(key);
    this.dirty = true;
  }

  save(): void {
    if (!this.entries || !this.dirty) return;
    const keep =
      this.entries.size > this.limit ? [...this.entries].filter(([k]) => this.used.has(k)) : [...this.entries];
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      // Runs in other roots share the file: write aside and rename, so no reader sees half a file.
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(keep)));
      renameSync(tmp, this.file);
      this.dirty = false;
    } catch {
      // A read-only install still generates correctly, only slower.
    }
  }

  /** Forgets what is in memory (the file stays): tests use it to compare a cold run with a warm one. */
  reset(): void {
    this.entries = undefined;
    this.used.clear();
    this.dirty = false;
    this.hits = this.misses = 0;
  }
}

export function saveMemos(): void {
  for (const m of all) m.save();
}

export function resetMemos(): void {
  for (const m of all) m.reset();
}

/** Hit and miss counts per memo since the last reset (progress lines, tests). */
export function memoStats(): Record<string, { hits: number; misses: number }> {
  return Object.fromEntries(all.map((m) => [m.name, { hits: m.hits, misses: m.misses }]));
}

/** Turns every memo off (RAF_OP_NO_MEMO=1, and the tests that compare a cold run with a warm one). */
export const memoDisabled = (): boolean => process.env.RAF_OP_NO_MEMO === '1';
