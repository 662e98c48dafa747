// Breaking-change rules over a spec diff: each break has a rule id, and an allow-list in the repo (each entry with
// a reason) marks the ones a pull request intends.

import { OP_IDS_LOCK, lockMismatches, parseLock } from '../emit/op-ids.ts';
import type { Model } from '../spec/model.ts';
import { gradInputsOf, typeChange, type SpecDiff } from './spec-diff.ts';

/** Rule id → what breaks, and for whom. */
export const RULES = {
  OP_REMOVED: 'calls, and saved graphs that store its id, no longer resolve',
  ARG_DELETED: 'calls that pass the arg fail',
  ARG_RENAMED: 'keyword callers (and relay/onnx attrs naming it) break',
  ARG_REORDERED: 'positional callers pass values to the wrong args',
  ARG_INSERTED: 'a new arg before existing ones shifts positional callers',
  ARG_REQUIRED_ADDED: 'existing calls lack the new required arg',
  DEFAULT_CHANGED: 'calls relying on the default silently compute something else',
  DEFAULT_REMOVED: 'calls relying on the default now fail',
  TYPE_NARROWED: 'values the arg accepted are now rejected',
  TYPE_CHANGED: 'the arg accepts different values than before',
  CHECK_ADDED: 'a new arg check rejects calls that passed',
  OUTPUT_CHANGED: 'the result has another shape or dtype rule',
  COMPUTE_CHANGED: 'the op computes something else',
  GRAD_REMOVED: 'backward through the op (or one of its inputs) fails',
  RELAY_REMOVED: 'Relay programs using the op no longer convert',
  ONNX_REMOVED: 'ONNX models using the op no longer import',
  DIALECT_REMOVED: 'code pinned to the dialect no longer dispatches',
  OP_ID_CHANGED: 'saved graphs store the old id and load another op (or none)',
  OP_ID_LOCK_EDITED: 'a locked op id was removed or changed by hand; retired ids must stay',
} as const satisfies Record<string, string>;
export type RuleId = keyof typeof RULES;

export interface Break {
  readonly rule: RuleId;
  readonly op: string;
  readonly arg?: string;
  readonly message: string;
}

export interface AllowEntry {
  readonly rule: RuleId;
  readonly op: string;
  readonly arg?: string;
  readonly reason: string;
}

export const ALLOW_LIST = 'specs/breaking-allow.json';

/** The break rules for one diff; `locks` are the op-id lock texts at both sides (absent where a side has none). */
export function findBreaks(diff: SpecDiff, head: Model, locks: { base?: string; head?: string } = {}): Break[] {
  const out: Break[] = [];
  const add = (rule: RuleId, op: string, message: string, arg?: string) =>
    out.push({ rule, op, message, ...(arg ? { arg } : {}) });
  for (const d of diff.ops) {
    const op = d.op;
    if (d.status === 'removed') add('OP_REMOVED', op, `raf.op.${op} was removed`);
    if (d.status !== 'changed') continue;
    const b = d.base!;
    const h = d.head!;
    for (const c of d.changes) {
      switch (c.kind) {
        case 'arg-removed':
          add('ARG_DELETED', op, `arg '${c.arg}' was deleted`, c.arg);
          break;
        case 'arg-renamed':
          add('ARG_RENAMED', op, `arg '${c.before}' was renamed to '${c.after}'`, c.arg);
          break;
        case 'args-reordered':
          add('ARG_REORDERED', op, `args reordered: (${c.before}) → (${c.after})`);
          break;
        case 'arg-added': {
          const a = h.args.find((x) => x.name === c.arg)!;
          if (!a.default) add('ARG_REQUIRED_ADDED', op, `required arg '${a.name}' was added`, a.name);
          else if (h.args.indexOf(a) < h.args.length - 1)
            add(
              'ARG_INSERTED',
              op,
              `arg '${a.name}' was inserted before '${h.args[h.args.indexOf(a) + 1]!.name}'`,
              a.name,
            );
          break;
        }
        case 'arg-retyped': {
          const t = typeChange(c.before as never, c.after as never);
          if (t === 'narrowed')
            add('TYPE_NARROWED', op, `arg '${c.arg}' narrowed from ${c.before} to ${c.after}`, c.arg);
          if (t === 'changed') add('TYPE_CHANGED', op, `arg '${c.arg}' changed from ${c.before} to ${c.after}`, c.arg);
          break;
        }
        case 'default-changed':
          if (c.after === 'required') add('DEFAULT_REMOVED', op, `arg '${c.arg}' lost its default ${c.before}`, c.arg);
          else if (c.before !== 'required')
            add('DEFAULT_CHANGED', op, `default of '${c.arg}' changed from ${c.before} to ${c.after}`, c.arg);
          break;
        case 'checks-changed': {
          const before = new Set(c.before!.split(' and '));
          const added = c.after!.split(' and ').filter((x) => x !== 'none' && !before.has(x));
          if (added.length) add('CHECK_ADDED', op, `arg '${c.arg}' gained check ${added.join(' and ')}`, c.arg);
          break;
        }
        case 'output':
          add('OUTPUT_CHANGED', op, `output rule ${c.before} → ${c.after}`);
          break;
        case 'compute':
          if (c.before !== 'none' && c.after !== 'none') add('COMPUTE_CHANGED', op, `compute ${c.before} → ${c.after}`);
          break;
        case 'relay':
          if (c.after === 'none') add('RELAY_REMOVED', op, `relay mapping ${c.before} was removed`);
          break;
        case 'onnx':
          if (c.after === 'none') add('ONNX_REMOVED', op, `onnx mapping ${c.before} was removed`);
          break;
        case 'dialects':
          if (c.after === 'none' && c.arg) add('DIALECT_REMOVED', op, `dialect ${c.arg} was removed`, c.arg);
          break;
      }
    }
    const lost = gradInputsOf(b).filter((i) => !gradInputsOf(h).includes(i));
    for (const i of lost)
      add(
        'GRAD_REMOVED',
        op,
        h.grad.kind === 'none' ? `the gradient was removed (grad: none)` : `input '${i}' lost its gradient`,
        i,
      );
  }
  if (locks.head !== undefined) {
    const headLock = parseLock(locks.head);
    for (const m of lockMismatches(head.ops, headLock))
      add('OP_ID_CHANGED', m.op, `op id ${m.locked} in ${OP_IDS_LOCK} is now ${m.now}`);
    if (locks.base !== undefined) {
      const baseLock = parseLock(locks.base);
      for (const [name, id] of Object.entries(baseLock.ops)) {
        const now = headLock.ops[name];
        if (now !== id)
          add(
            'OP_ID_LOCK_EDITED',
            name,
            now === undefined
              ? `locked id ${id} was removed from ${OP_IDS_LOCK}`
              : `locked id ${id} was changed to ${now}`,
          );
      }
    }
  }
  return out;
}

/** Reads the allow-list; every entry must name a known rule and an op, and say why. */
export function parseAllowList(text: string | undefined): { entries: AllowEntry[]; errors: string[] } {
  if (text === undefined) return { entries: [], errors: [] };
  const errors: string[] = [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { entries: [], errors: [`${ALLOW_LIST}: not JSON: ${(e as Error).message}`] };
  }
  const list = (data as { allow?: unknown }).allow;
  if (!Array.isArray(list))
    return { entries: [], errors: [`${ALLOW_LIST}: expected { "allow": [ { "rule", "op", "arg"?, "reason" } ] }`] };
  const entries: AllowEntry[] = [];
  list.forEach((e: Record<string, unknown>, i) => {
    const at = `${ALLOW_LIST}: allow[${i}]`;
    if (typeof e?.rule !== 'string' || !(e.rule in RULES))
      errors.push(`${at}: rule ${JSON.stringify(e?.rule)} is not one of ${Object.keys(RULES).join(', ')}`);
    else if (typeof e.op !== 'string' || !e.op) errors.push(`${at}: names no op`);
    else if (typeof e.reason !== 'string' || !e.reason.trim())
      errors.push(`${at}: ${e.rule} on ${e.op} gives no reason; say why the break is intended`);
    else
      entries.push({
        rule: e.rule as RuleId,
        op: e.op,
        ...(typeof e.arg === 'string' ? { arg: e.arg } : {}),
        reason: e.reason,
      });
  });
  return { entries, errors };
}

export function allowedBy(b: Break, entries: readonly AllowEntry[]): AllowEntry | undefined {
  return entries.find((e) => e.rule === b.rule && e.op === b.op && (e.arg === undefined || e.arg === b.arg));
}
