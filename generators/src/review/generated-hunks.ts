// The generated files a spec edit causes: today's emitters run on both models in memory, and the formatted
// texts are diffed, so the hunks show the spec edit's effect and never a generator change's.

import { structuredPatch } from 'diff';
import { emitAll } from '../emit/index.ts';
import { sourceOf, type EmittedFile } from '../emit/files.ts';
import type { Model } from '../spec/model.ts';
import { format } from '../write.ts';

export interface FileDiff {
  readonly path: string;
  readonly status: 'created' | 'updated' | 'deleted';
  /** `stub`: a hand-written home raf-op would create once. */
  readonly kind: 'generated' | 'stub';
  /** The op whose spec caused it, or null for files every op feeds (registry, indexes, docs, coverage). */
  readonly op: string | null;
  readonly added: number;
  readonly removed: number;
  /** Unified hunks (`@@ ... @@` and lines), for updated files. */
  readonly hunks: string;
}

export async function generatedDiff(root: string, base: Model, head: Model): Promise<FileDiff[]> {
  const before = emitted(base);
  const after = emitted(head);
  const owners = new Map<string, string>();
  for (const m of [base, head]) for (const op of m.ops) owners.set(sourceOf(op), op.name);
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: FileDiff[] = [];
  for (const path of paths) {
    const b = before.get(path);
    const h = after.get(path);
    if (b?.content === h?.content) continue;
    const file = (h ?? b)!;
    // A stub is only news when it appears: afterwards it is the author's file, not the generator's.
    if (file.kind === 'stub' && b && h) continue;
    if (file.kind === 'stub' && !h) continue;
    const op = owners.get(file.source) ?? null;
    const [x, y] = await Promise.all([b ? format(root, b) : '', h ? format(root, h) : '']);
    if (x === y) continue;
    const patch = structuredPatch(path, path, x, y, '', '', { context: 3 });
    const lines = patch.hunks.flatMap((hk) => hk.lines);
    out.push({
      path,
      status: !b ? 'created' : !h ? 'deleted' : 'updated',
      kind: file.kind,
      op,
      added: lines.filter((l) => l.startsWith('+')).length,
      removed: lines.filter((l) => l.startsWith('-')).length,
      hunks: patch.hunks
        .map((hk) => [`@@ -${hk.oldStart},${hk.oldLines} +${hk.newStart},${hk.newLines} @@`, ...hk.lines].join('\n'))
        .join('\n'),
    });
  }
  return out;
}

function emitted(model: Model): Map<string, EmittedFile> {
  const { generated, stubs } = emitAll(model);
  // The op-id lock is a stub that `gen` extends in place; the semantic diff reports ids instead.
  return new Map([...generated, ...stubs.filter((s) => !s.update || s.emitter !== 'op-ids')].map((f) => [f.path, f]));
}
