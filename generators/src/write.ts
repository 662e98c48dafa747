// The writer: virtual tree → prettier → a plan (create/update/delete) → disk all at once, or --check/--dry-run.

import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, extname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import type * as prettier from 'prettier';
import { formatTsInPieces, isPrettierJson } from './chunks.ts';
import { Memo, saveMemos, sha } from './memo.ts';
import { isAggregate, type EmittedFile } from './emit/files.ts';
import { GEN_STATE_DIR, generatedDirs } from './layout.ts';
import type { StubFile } from './emit/stubs.ts';

export { GENERATED_DIRS } from './layout.ts';

export interface Change {
  readonly path: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly kind: 'generated' | 'stub';
  readonly content?: string;
}

let prettierOptions: prettier.Options | undefined;
let prettierModule: typeof import('prettier') | undefined;

/**
 * Prettier is most of a regeneration's time, and most files come out the same as last time, so formatted text is
 * memoized by (prettier's version, options, file type, unformatted text); prettier itself loads only on a miss.
 */
const formatted = new Memo('format');
const require = createRequire(import.meta.url);
let prettierVersion: string | undefined;

export async function format(root: string, file: EmittedFile): Promise<string> {
  // The options come from the root's config; the version from prettier's package.json (no need to load prettier).
  prettierVersion ??= (require('prettier/package.json') as { version: string }).version;
  if (!prettierOptions) {
    prettierModule ??= await import('prettier');
    prettierOptions = (await prettierModule.resolveConfig(join(root, 'package.json'))) ?? {};
  }
  const options = prettierOptions;
  const one = async (text: string): Promise<string> => {
    const key = sha(prettierVersion!, JSON.stringify(options), extname(file.path), text);
    const hit = formatted.get(key);
    if (hit !== undefined) return hit;
    prettierModule ??= await import('prettier');
    const out = await prettierModule.format(text, { ...options, filepath: join(root, file.path) });
    formatted.set(key, out);
    return out;
  };
  // Aggregate files (a line or an entry per op) in pieces: a new op formats only the pieces that list it (chunks.ts).
  const whole = process.env.RAF_OP_FORMAT_WHOLE === '1';
  if (extname(file.path) === '.json' && !whole && isPrettierJson(file.content)) return file.content;
  if (extname(file.path) === '.ts' && isAggregate(file.source) && !whole) {
    // An aggregate no op changed is found whole, without cutting it again.
    const key = sha(prettierVersion, JSON.stringify(options), 'pieces', file.content);
    const hit = formatted.get(key);
    if (hit !== undefined) return hit;
    const pieces = await formatTsInPieces(file.content, one, options.printWidth ?? 80);
    if (pieces !== undefined) {
      formatted.set(key, pieces);
      return pieces;
    }
  }
  if (extname(file.path) !== '.md') return one(file.content);
  // A docs page is one section per op: formatted section by section, a new op reformats its own section only
  // (prettier takes seconds over a whole page of tables). A block under `<!-- prettier-ignore -->` is what prettier
  // keeps as written, so it is not parsed at all. A test checks every page is then a prettier fixed point.
  const sections = await Promise.all(
    markdownSections(file.content)
      .filter((part) => part.trim() !== '')
      .map((part) => (part.startsWith(IGNORE) ? `${part.trimEnd()}\n` : one(part))),
  );
  return sections.join('\n');
}

const IGNORE = '<!-- prettier-ignore -->\n';

/**
 * Markdown split before each `## ` heading outside a fenced code block, and around each `<!-- prettier-ignore -->`
 * comment with the block under it (up to the next blank line); together the parts are the text.
 */
export function markdownSections(text: string): string[] {
  const parts: string[] = [];
  let fence: string | undefined;
  let ignoring = false;
  let start = 0;
  let offset = 0;
  const cut = () => {
    if (offset > start) parts.push(text.slice(start, offset));
    start = offset;
  };
  for (const line of text.split('\n')) {
    const marker = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (ignoring) {
      if (line.trim() === '') {
        cut();
        ignoring = false;
      }
    } else if (fence === undefined && marker) fence = marker;
    else if (fence !== undefined && marker?.startsWith(fence) && line.trim() === marker) fence = undefined;
    else if (fence === undefined && `${line}\n` === IGNORE) {
      cut();
      ignoring = true;
    } else if (fence === undefined && line.startsWith('## ')) cut();
    offset += line.length + 1;
  }
  parts.push(text.slice(start));
  return parts;
}

/** Compares the virtual tree with the disk; reads the disk, writes nothing. */
export async function plan(
  root: string,
  generated: readonly EmittedFile[],
  stubs: readonly StubFile[],
  opts: { readonly deletes?: boolean } = {},
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
  // A scaffold plans a subset and deletes nothing: it need not list the generated folders.
  for (const dir of opts.deletes === false ? [] : generatedDirs(root)) {
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
  saveMemos();
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * The writer's state folder in the root: `lock` (who is generating), `staging/` (new contents, written
 * before anything in the tree changes), `backup/` (what the changed files held) and `journal.json`
 * (the commit point: once it exists the run is rolled forward, before it the run never happened).
 */
export const STATE_DIR = GEN_STATE_DIR;
const LOCK = `${STATE_DIR}/lock`;
const STAGING = `${STATE_DIR}/staging`;
const BACKUP = `${STATE_DIR}/backup`;
const JOURNAL = `${STATE_DIR}/journal.json`;

/** A run that cannot start or finish because of the writer's state (another run, an interrupted one). */
export class GenStateError extends Error {
  override name = 'GenStateError';
}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  readonly argv: string;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), where /proc has it. */
  readonly since?: string;
}

/** A process's state letter and start time from /proc/<pid>/stat, or undefined where /proc does not say. */
function procStat(pid: number): { state: string; since: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or ')': the fields after its last ')'.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, since: rest[19]! };
  } catch {
    return undefined;
  }
}

/**
 * Whether the run that wrote a lock still runs: its pid exists, is not a zombie (a killed process its parent has not
 * reaped, forever where PID 1 never reaps) and, where /proc says, started when the lock's run did (not a reused pid).
 */
const alive = (pid: number, since?: string) => {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return existsSync('/proc/self/stat') ? false : true;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return since === undefined || since === '' || stat.since === since;
};

const holderAlive = (h: Holder) => h.host !== hostname() || alive(h.pid, h.since);

function readHolder(path: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

/** The live run holding the lock, if any (a lock left by a killed process on this host does not count). */
export function lockHolder(root: string): Holder | undefined {
  const h = readHolder(join(root, LOCK));
  if (!h) return undefined;
  return holderAlive(h) ? h : undefined;
}

const describeHolder = (h: Holder) => `pid ${h.pid} on ${h.host}, started ${h.started}: ${h.argv}`;

/**
 * How long a lock file that does not parse yet is taken for one being written by a run starting now (its `wx` create
 * and its write are two steps), rather than one left by a run killed between them.
 */
export const HALF_WRITTEN_MS = 5000;

/** The lock file's age in ms, or undefined when it is gone. */
function lockAge(path: string): number | undefined {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Takes the generation lock for this root, or throws naming the run that holds it. A lock whose
 * process is gone (killed) is taken over; the state it left is then recovered by `recover`. A lock that
 * does not parse yet is waited on (up to HALF_WRITTEN_MS after its creation): its run may be writing it.
 */
export function acquireLock(root: string): () => void {
  const path = join(root, LOCK);
  mkdirSync(dirname(path), { recursive: true });
  const me: Holder = {
    pid: process.pid,
    host: hostname(),
    started: new Date().toISOString(),
    argv: process.argv.slice(1).join(' '),
    since: procStat(process.pid)?.since ?? '',
  };
  // Takeovers of stale locks are bounded, and so are the other turns (a lock that vanished, or one being written).
  let takeovers = 0;
  for (let turn = 0; turn < 2 * (HALF_WRITTEN_MS / 10) && takeovers < 5; turn++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return () => {
        if (readHolder(path)?.pid === me.pid) rmSync(path, { force: true });
        try {
          rmdirSync(join(root, STATE_DIR));
        } catch {
          // Not empty (another run's lock, or state to recover) or already gone.
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        mkdirSync(dirname(path), { recursive: true });
        continue;
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(path);
    if (holder && holderAlive(holder)) {
      throw new GenStateError(
        `another raf-op gen is running in ${root} (${describeHolder(holder)}); wait for it to finish. ` +
          `If that process is gone, delete ${LOCK}.`,
      );
    }
    if (!holder) {
      // Created but not written yet by a run starting now: wait for its content rather than take it (which let two
      // runs write the tree at once when the machine was slow). One that stays unwritten was left by a killed run.
      const age = lockAge(path);
      if (age === undefined) continue;
      if (age < HALF_WRITTEN_MS) {
        pause(10);
        continue;
      }
    }
    takeovers++;
    // Stale (its process was killed, or it never got its content): move it aside atomically, so that of two
    // runs taking it over only one succeeds, then check that what was moved is the stale lock.
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch {
      continue;
    }
    const moved = readHolder(aside);
    if (moved && holder && moved.pid !== holder.pid && holderAlive(moved)) {
      // A live run took the lock between our read and the rename: give it back.
      renameSync(aside, path);
      continue;
    }
    if (!holder && moved && holderAlive(moved)) {
      // A run's fresh lock replaced the stale one between our read and the rename: give it back.
      renameSync(aside, path);
      continue;
    }
    rmSync(aside, { force: true });
  }
  throw new GenStateError(`could not take ${LOCK} in ${root}: other runs keep taking it; try again`);
}

interface Journal {
  readonly changes: readonly { path: string; action: Change['action'] }[];
}

/** What an interrupted run left, described for `gen --check`, or undefined when there is nothing. */
export function pendingState(root: string): string | undefined {
  if (existsSync(join(root, JOURNAL))) {
    const n = readJournal(root)?.changes.length ?? 0;
    return `an interrupted raf-op gen committed ${n} change${n === 1 ? '' : 's'} that are not all applied (${JOURNAL})`;
  }
  if (existsSync(join(root, STAGING)) || existsSync(join(root, BACKUP)))
    return `an interrupted raf-op gen left staged files in ${STAGING}/ that were never applied`;
  return undefined;
}

function readJournal(root: string): Journal | undefined {
  try {
    return JSON.parse(readFileSync(join(root, JOURNAL), 'utf8')) as Journal;
  } catch {
    return undefined;
  }
}

/**
 * Finishes what an interrupted run left (call with the lock held): a committed journal is rolled
 * forward, staging without one is discarded. Returns what was done, for the log.
 */
export function recover(root: string): string | undefined {
  const journal = existsSync(join(root, JOURNAL)) ? readJournal(root) : undefined;
  if (journal) {
    const changed = changedSince(root, journal);
    if (changed.length) {
      const n = changed.length;
      throw new GenStateError(
        `an interrupted run (${JOURNAL}) would replace ${n === 1 ? 'a file' : `${n} files`} changed since it ` +
          `was killed; nothing was written:\n${changed.map((c) => `  ${c}`).join('\n')}\n` +
          `hint: your version is kept. To drop the interrupted run and regenerate from the specs (hand-written ` +
          `files are never replaced then), delete ${STATE_DIR}/ and run gen again; to let the run finish, move ` +
          `the file${n === 1 ? '' : 's'} aside first.`,
      );
    }
    rollForward(root, journal);
    finish(root);
    return `completed an interrupted run (${journal.changes.length} changes from ${JOURNAL})`;
  }
  if (existsSync(join(root, STAGING)) || existsSync(join(root, BACKUP)) || existsSync(join(root, JOURNAL))) {
    finish(root);
    return `discarded what an interrupted run left uncommitted in ${STATE_DIR}/ (the tree holds the state before or after it, whole)`;
  }
  return undefined;
}

/**
 * The files a committed journal still has to replace or delete that no longer hold what the run found (a person
 * wrote or edited them after the kill): a file the run creates that exists now, or one it updates or deletes whose
 * content differs from the run's backup. Changes already applied (their staged copy moved) are not touched again.
 */
function changedSince(root: string, journal: Journal): string[] {
  const out: string[] = [];
  for (const c of journal.changes) {
    const target = join(root, c.path);
    if (c.action !== 'delete' && !existsSync(join(root, STAGING, c.path))) continue; // applied already
    const now = readIfExists(target);
    if (c.action === 'create') {
      if (now !== undefined || existsSync(target)) out.push(`${c.path} (written after the run, which would create it)`);
      continue;
    }
    if (now === undefined) continue; // deleted already, or gone: nothing of a person's is replaced
    const backup = join(root, BACKUP, c.path);
    const before = existsSync(backup) ? readFileSync(backup, 'utf8') : undefined;
    if (before !== undefined && now !== before)
      out.push(`${c.path} (edited after the run, which would ${c.action === 'delete' ? 'delete' : 'replace'} it)`);
  }
  return out;
}

/** Fault injection for the kill tests: RAF_OP_GEN_CRASH_AT=N kills the process at the N-th step of apply. */
let step = 0;
function crashPoint(): void {
  const at = Number(process.env.RAF_OP_GEN_CRASH_AT);
  if (at > 0 && ++step === at) process.kill(process.pid, 'SIGKILL');
}

function rollForward(root: string, journal: Journal): void {
  for (const c of journal.changes) {
    const target = join(root, c.path);
    if (c.action === 'delete') {
      rmSync(target, { force: true });
    } else {
      const staged = join(root, STAGING, c.path);
      if (!existsSync(staged)) continue; // moved already
      mkdirSync(dirname(target), { recursive: true });
      renameSync(staged, target);
    }
    crashPoint();
  }
}

/** Drops the journal first (the run is then complete), then the staging and backup folders. */
function finish(root: string): void {
  rmSync(join(root, JOURNAL), { force: true });
  crashPoint();
  rmSync(join(root, STAGING), { recursive: true, force: true });
  rmSync(join(root, BACKUP), { recursive: true, force: true });
}

/**
 * Applies a plan, all or nothing (call with the lock held). Every new content is staged in the state
 * folder and every file about to change is backed up; writing the journal commits the run. A failure
 * before that point leaves the tree untouched; a failure after it restores the backups; a kill after
 * it is rolled forward by the next run (`recover`), and `gen --check` reports it until then.
 */
export function apply(root: string, changes: readonly Change[]): void {
  step = 0;
  rmSync(join(root, STAGING), { recursive: true, force: true });
  rmSync(join(root, BACKUP), { recursive: true, force: true });
  try {
    for (const c of changes) {
      const target = join(root, c.path);
      preflight(root, c.path);
      if (c.action !== 'create' && existsSync(target)) {
        const backup = join(root, BACKUP, c.path);
        mkdirSync(dirname(backup), { recursive: true });
        copyFileSync(target, backup);
      }
      if (c.action !== 'delete') {
        const staged = join(root, STAGING, c.path);
        mkdirSync(dirname(staged), { recursive: true });
        writeFileSync(staged, c.content!);
      }
      crashPoint();
    }
    const journal: Journal = { changes: changes.map((c) => ({ path: c.path, action: c.action })) };
    writeFileSync(join(root, `${JOURNAL}.tmp`), JSON.stringify(journal));
    renameSync(join(root, `${JOURNAL}.tmp`), join(root, JOURNAL));
  } catch (e) {
    rmSync(join(root, `${JOURNAL}.tmp`), { force: true });
    finish(root);
    throw e;
  }
  crashPoint();
  try {
    rollForward(root, { changes });
  } catch (e) {
    restore(root, changes);
    finish(root);
    throw e;
  }
  finish(root);
}

/** Refuses, before anything is written, a change the file system would refuse halfway (a folder in the way). */
function preflight(root: string, path: string): void {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const p = join(root, ...parts.slice(0, i));
    if (existsSync(p) && !statSync(p).isDirectory())
      throw new GenStateError(`cannot write ${path}: ${parts.slice(0, i).join('/')} is a file, not a folder`);
  }
  const target = join(root, path);
  if (existsSync(target) && statSync(target).isDirectory())
    throw new GenStateError(`cannot write ${path}: a folder of that name is in the way`);
}

/** Undoes a partly applied plan from its backups (a live failure after the commit point). */
function restore(root: string, changes: readonly Change[]): void {
  for (const c of changes) {
    const target = join(root, c.path);
    const backup = join(root, BACKUP, c.path);
    try {
      if (c.action === 'create') rmSync(target, { force: true });
      else if (existsSync(backup)) {
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(backup, target);
      }
    } catch {
      // Best effort: what could not be restored is still in the backup folder's copy until finish().
    }
  }
}

function readIfExists(path: string): string | undefined {
  // A folder where a file belongs is planned as a create; apply's preflight then refuses the whole plan.
  return existsSync(path) && !statSync(path).isDirectory() ? readFileSync(path, 'utf8') : undefined;
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
