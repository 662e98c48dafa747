// Persistent memos of the pipeline's pure, costly steps (ts-morph printing, prettier, stub signature updates, a
// kernel's names, a spec's parsed data): output by a hash of everything the output depends on. What makes a
// regeneration after one spec edit cost about one op's work, and a scaffold's regeneration nearly free.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** An entry's file name: the key itself when it is a hash (as every caller's is), else a hash of it. */
const fileName = (key: string) => (/^[\w-]{1,100}$/.test(key) ? key : sha(key));

/**
 * One memo: key → text, one file per entry in a folder named after it, read on first use of its key (a scaffold reads
 * the few dozen it needs, not every entry a full regeneration made). `saveMemos()` writes the new entries; once the
 * folder holds more than `limit` (a few full regenerations' worth) the oldest are removed. Without a writable cache
 * every run computes everything.
 */
export class Memo {
  private readonly entries = new Map<string, string | undefined>();
  private readonly pending = new Map<string, string>();
  hits = 0;
  misses = 0;

  constructor(
    readonly name: string,
    private readonly limit = 6_000,
  ) {
    all.push(this);
  }

  private get dir(): string {
    return join(memoDir(), this.name);
  }

  get(key: string): string | undefined {
    if (memoDisabled()) {
      this.misses++;
      return undefined;
    }
    let v = this.entries.get(key);
    if (v === undefined && !this.entries.has(key)) {
      try {
        v = readFileSync(join(this.dir, fileName(key)), 'utf8');
      } catch {
        v = undefined;
      }
      this.entries.set(key, v);
    }
    if (v === undefined) this.misses++;
    else this.hits++;
    return v;
  }

  set(key: string, value: string): void {
    if (memoDisabled()) return;
    this.entries.set(key, value);
    this.pending.set(key, value);
  }

  save(): void {
    if (!this.pending.size) return;
    try {
      mkdirSync(this.dir, { recursive: true });
      // Runs in other roots share the folder: write aside and rename, so no reader sees half an entry.
      for (const [key, value] of this.pending) {
        const tmp = join(this.dir, `${fileName(key)}.${process.pid}.tmp`);
        writeFileSync(tmp, value);
        renameSync(tmp, join(this.dir, fileName(key)));
      }
      this.pending.clear();
      this.prune();
      // The single-file memo of earlier versions, no longer read.
      rmSync(`${this.dir}.json`, { force: true });
    } catch {
      // A read-only install still generates correctly, only slower.
    }
  }

  /** Over the limit by half: down to the `limit` most recently written entries. */
  private prune(): void {
    const names = readdirSync(this.dir);
    if (names.length <= this.limit * 1.5) return;
    const dated = names.map((n) => {
      try {
        return { n, t: statSync(join(this.dir, n)).mtimeMs };
      } catch {
        return { n, t: 0 };
      }
    });
    dated.sort((a, b) => b.t - a.t);
    for (const { n } of dated.slice(this.limit)) rmSync(join(this.dir, n), { force: true });
  }

  /** Forgets what is in memory (the files stay): tests use it to compare a cold run with a warm one. */
  reset(): void {
    this.entries.clear();
    this.pending.clear();
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
