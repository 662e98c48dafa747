// The no-op fast path: when specs, generator and outputs are exactly as the last run left them, skip the pipeline.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GEN_STATE_DIR, generatedDirs, specFiles } from './layout.ts';
import { memoDisabled } from './memo.ts';

const GENERATOR_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE_DIR = join(GENERATOR_ROOT, '../node_modules/.cache/raf-op');

/** What a finished run produced: enough to prove the next run would change nothing. */
interface Manifest {
  readonly inputs: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly summary: string;
}

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('base64url');

function listFiles(dir: string, base: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) listFiles(p, base, out);
    else out.push(relative(base, p).split('\\').join('/'));
  }
  return out;
}

/** Every spec, the generator's own sources and templates, and the formatter's version and config. */
function inputsFingerprint(root: string): string {
  const h = createHash('sha256');
  for (const f of specFiles(root)) h.update(f).update(readFileSync(join(root, f)));
  for (const dir of ['src', 'schema']) {
    for (const f of listFiles(join(GENERATOR_ROOT, dir), GENERATOR_ROOT))
      h.update(f).update(readFileSync(join(GENERATOR_ROOT, f)));
  }
  for (const f of listFiles(join(GENERATOR_ROOT, '../templates'), GENERATOR_ROOT))
    h.update(f).update(readFileSync(join(GENERATOR_ROOT, f)));
  for (const f of ['.prettierrc.json', 'package-lock.json']) {
    if (existsSync(join(root, f))) h.update(f).update(readFileSync(join(root, f)));
  }
  return h.digest('base64url');
}

function manifestPath(root: string): string {
  return join(CACHE_DIR, `manifest-${sha(root).slice(0, 16)}.json`);
}

/** Output files the manifest covers: everything in the generated folders plus the given extra paths. */
function currentOutputs(root: string, extra: readonly string[]): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const dir of generatedDirs(root))
    for (const f of listFiles(join(root, dir), root)) outputs[f] = sha(readFileSync(join(root, f)));
  for (const f of extra) if (existsSync(join(root, f))) outputs[f] = sha(readFileSync(join(root, f)));
  return outputs;
}

/** The summary line of the last run, when nothing it covered has changed since; otherwise undefined. */
export function upToDate(root: string): string | undefined {
  // A run under way or interrupted (the writer's lock, staging or journal): take the full path.
  if (existsSync(join(root, GEN_STATE_DIR))) return undefined;
  // A run without memos (RAF_OP_NO_MEMO=1), or formatting every file whole, checks everything from scratch.
  if (memoDisabled() || process.env.RAF_OP_FORMAT_WHOLE === '1') return undefined;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(root), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
  if (manifest.inputs !== inputsFingerprint(root)) return undefined;
  const extra = Object.keys(manifest.outputs).filter((p) => !generatedDirs(root).some((d) => p.startsWith(`${d}/`)));
  const now = currentOutputs(root, extra);
  const before = manifest.outputs;
  const same =
    Object.keys(now).length === Object.keys(before).length && Object.entries(now).every(([p, h]) => before[p] === h);
  return same ? manifest.summary : undefined;
}

/** Records a run that left the tree matching the specs; `extra` names files outside the generated folders it owns or checked. */
export function recordUpToDate(root: string, extra: readonly string[], summary: string): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const manifest: Manifest = { inputs: inputsFingerprint(root), outputs: currentOutputs(root, extra), summary };
    const tmp = `${manifestPath(root)}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(manifest));
    renameSync(tmp, manifestPath(root));
  } catch {
    // Without a writable cache every run takes the full path; nothing else changes.
  }
}
