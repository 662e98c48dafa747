// `raf-op diff` and `raf-op breaking`: both sides loaded, compared, and written up as Markdown for a PR comment.

import { OP_IDS_LOCK } from '../emit/op-ids.ts';
import { ownModel } from '../emit/package.ts';
import type { Model } from '../spec/model.ts';
import { ALLOW_LIST, RULES, allowedBy, findBreaks, parseAllowList, type AllowEntry, type Break } from './breaking.ts';
import { generatedDiff, type FileDiff } from './generated-hunks.ts';
import {
  fileAtRef,
  fileInWorkingTree,
  isEmptyBase,
  modelOrExplain,
  resolveRef,
  specsAtRef,
  specsInWorkingTree,
} from './git.ts';
import { diffModels, type SpecDiff } from './spec-diff.ts';

export interface ReviewOptions {
  /** The ref the working tree is compared with. */
  readonly against: string;
  /** Leave the generated hunks out (file names and line counts stay). */
  readonly summary?: boolean;
  /** Most hunk lines shown per file; the rest is counted. */
  readonly maxLines?: number;
}

export interface Review {
  readonly base: Model;
  readonly head: Model;
  readonly diff: SpecDiff;
  readonly breaks: readonly (Break & { allowed?: AllowEntry })[];
  readonly allowErrors: readonly string[];
  /** Allow-list entries that excuse nothing in this diff (left over from an earlier break). */
  readonly unusedAllows: readonly AllowEntry[];
}

export function review(root: string, against: string): Review {
  // Before the first commit (or outside git) HEAD is an empty base: every op of the working tree is added.
  const empty = isEmptyBase(root, against);
  if (!empty) resolveRef(root, against);
  const base = modelOrExplain(empty ? new Map() : specsAtRef(root, against), against, root);
  const head = modelOrExplain(specsInWorkingTree(root), 'working tree', root);
  // In a package both sides hold the installed runtime's ops for reference (the base only once it has a spec): only
  // the package's own ops are compared.
  const diff = diffModels(ownModel(base), ownModel(head));
  const found = findBreaks(diff, head, {
    base: empty ? undefined : fileAtRef(root, against, OP_IDS_LOCK),
    head: fileInWorkingTree(root, OP_IDS_LOCK),
  });
  const { entries, errors } = parseAllowList(fileInWorkingTree(root, ALLOW_LIST));
  const breaks = found.map((b): Break & { allowed?: AllowEntry } => {
    const allowed = allowedBy(b, entries);
    return allowed ? { ...b, allowed } : b;
  });
  const unusedAllows = entries.filter((e) => !breaks.some((b) => b.allowed === e));
  return { base, head, diff, breaks, allowErrors: errors, unusedAllows };
}

const tag = (b: Break & { allowed?: AllowEntry }) =>
  b.allowed ? `✓ \`${b.rule}\` (allowed: ${b.allowed.reason})` : `⚠️ \`${b.rule}\``;

export async function diffReport(
  root: string,
  opts: ReviewOptions,
): Promise<{ markdown: string; review: Review; files: FileDiff[] }> {
  const r = review(root, opts.against);
  const files = await generatedDiff(root, r.base, r.head);
  const base = isEmptyBase(root, opts.against)
    ? `\`${opts.against}\` (no commit yet: an empty base)`
    : `\`${opts.against}\``;
  const lines: string[] = [`## raf-op diff: ${base} → working tree`, ''];
  if (!r.diff.ops.length && !files.length) {
    lines.push('No spec changes.');
    return { markdown: `${lines.join('\n')}\n`, review: r, files };
  }
  const open = r.breaks.filter((b) => !b.allowed).length;
  lines.push(
    `${r.diff.ops.length} op${r.diff.ops.length === 1 ? '' : 's'} changed (${['added', 'removed', 'changed'].map((s) => `${r.diff.ops.filter((o) => o.status === s).length} ${s}`).join(', ')}); ` +
      `${files.length} generated file${files.length === 1 ? '' : 's'}; ` +
      `${r.breaks.length ? `${r.breaks.length} breaking (${open} not in ${ALLOW_LIST})` : 'nothing breaking'}.`,
    '',
  );
  for (const d of r.diff.ops) {
    lines.push(
      `### \`${d.op}\` (${d.status}) — ${d.derivedFrom ? `derived from ${d.derivedFrom}, ` : ''}${d.file}`,
      '',
    );
    const opBreaks = r.breaks.filter((b) => b.op === d.op);
    for (const c of d.changes) {
      const mine = opBreaks.filter((b) => ruleFits(b, c.kind, c.arg));
      lines.push(`- ${c.text}${mine.length ? ` ${mine.map(tag).join(' ')}` : ''}`);
    }
    for (const b of opBreaks.filter((b) => !d.changes.some((c) => ruleFits(b, c.kind, c.arg))))
      lines.push(`- ${b.message} ${tag(b)}`);
    lines.push(
      '',
      ...filesSection(
        files.filter((f) => f.op === d.op),
        opts,
      ),
      '',
    );
  }
  // An unchanged op's files can still change: a backward op's tests follow its forward op's args.
  const others = files.filter((f) => f.op !== null && !r.diff.ops.some((d) => d.op === f.op));
  if (others.length)
    lines.push('### Generated files of ops whose spec did not change', '', ...filesSection(others, opts, true), '');
  const shared = files.filter((f) => f.op === null);
  if (shared.length)
    lines.push('### Shared generated files (registry, indexes, docs)', '', ...filesSection(shared, opts), '');
  const other = r.breaks.filter((b) => !r.diff.ops.some((d) => d.op === b.op));
  if (other.length) lines.push('### Op ids', '', ...other.map((b) => `- ${b.op}: ${b.message} ${tag(b)}`), '');
  return { markdown: `${lines.join('\n').trimEnd()}\n`, review: r, files };
}

/** Which semantic change a break belongs under, so it is printed next to it. */
function ruleFits(b: Break, kind: string, arg?: string): boolean {
  const byKind: Record<string, readonly string[]> = {
    'op-removed': ['OP_REMOVED'],
    'arg-removed': ['ARG_DELETED'],
    'arg-renamed': ['ARG_RENAMED'],
    'args-reordered': ['ARG_REORDERED'],
    'arg-added': ['ARG_REQUIRED_ADDED', 'ARG_INSERTED'],
    'arg-retyped': ['TYPE_NARROWED', 'TYPE_CHANGED'],
    'default-changed': ['DEFAULT_CHANGED', 'DEFAULT_REMOVED'],
    'checks-changed': ['CHECK_ADDED'],
    output: ['OUTPUT_CHANGED'],
    compute: ['COMPUTE_CHANGED'],
    gradient: ['GRAD_REMOVED'],
    relay: ['RELAY_REMOVED'],
    onnx: ['ONNX_REMOVED'],
    dialects: ['DIALECT_REMOVED'],
  };
  if (!byKind[kind]?.includes(b.rule)) return false;
  return (
    kind === 'gradient' ||
    kind === 'args-reordered' ||
    kind === 'output' ||
    kind === 'compute' ||
    kind === 'relay' ||
    kind === 'onnx' ||
    b.arg === arg
  );
}

function filesSection(files: readonly FileDiff[], opts: ReviewOptions, named = false): string[] {
  if (!files.length) return [];
  const out = [
    `<details><summary>${files.length} generated file${files.length === 1 ? '' : 's'} (+${sum(files, 'added')} −${sum(files, 'removed')})</summary>`,
    '',
  ];
  for (const f of files) {
    out.push(
      `- \`${f.path}\`${named ? ` (${f.op})` : ''} ${f.status}${f.kind === 'stub' ? ' (hand-written stub, created once)' : ''} (+${f.added} −${f.removed})`,
    );
    if (opts.summary || f.status !== 'updated') continue;
    const max = opts.maxLines ?? 80;
    const lines = f.hunks.split('\n');
    // A fence longer than any backtick run inside, so generated Markdown with its own fences stays quoted.
    const fence = '`'.repeat(Math.max(3, ...(f.hunks.match(/`+/g) ?? []).map((m) => m.length + 1)));
    out.push(
      '',
      `  ${fence}diff`,
      ...lines.slice(0, max).map((l) => `  ${l}`),
      ...(lines.length > max ? [`  … ${lines.length - max} more lines`] : []),
      `  ${fence}`,
      '',
    );
  }
  out.push('</details>');
  return out;
}

const sum = (files: readonly FileDiff[], k: 'added' | 'removed') => files.reduce((n, f) => n + f[k], 0);

export function breakingReport(root: string, against: string): { markdown: string; failed: boolean; review: Review } {
  const r = review(root, against);
  const open = r.breaks.filter((b) => !b.allowed);
  const lines = [`## raf-op breaking: \`${against}\` → working tree`, ''];
  if (!r.breaks.length) lines.push('No breaking changes.');
  else {
    lines.push(
      `${r.breaks.length} breaking change${r.breaks.length === 1 ? '' : 's'}, ${open.length} not allowed.`,
      '',
      '| rule | op | change | status |',
      '| --- | --- | --- | --- |',
    );
    for (const b of r.breaks)
      lines.push(
        `| \`${b.rule}\` | ${b.op} | ${b.message.replace(/\|/g, '\\|')} | ${b.allowed ? `allowed: ${b.allowed.reason}` : '✗ breaks'} |`,
      );
  }
  if (open.length) {
    const entries = open.map((b) => ({
      rule: b.rule,
      op: b.op,
      ...(b.arg ? { arg: b.arg } : {}),
      reason: `why ${RULES[b.rule]} is acceptable`,
    }));
    lines.push(
      '',
      `If a break is intended, add it to \`${ALLOW_LIST}\` with the reason:`,
      '',
      '```json',
      JSON.stringify({ allow: entries }, null, 2),
      '```',
    );
  }
  for (const e of r.allowErrors) lines.push('', `✗ ${e}`);
  if (r.unusedAllows.length)
    lines.push(
      '',
      `Allow-list entries that excuse nothing against \`${against}\` (remove once merged): ${r.unusedAllows.map((e) => `${e.rule} ${e.op}${e.arg ? `.${e.arg}` : ''}`).join(', ')}`,
    );
  return { markdown: `${lines.join('\n')}\n`, failed: open.length > 0 || r.allowErrors.length > 0, review: r };
}
