// The semantic diff of two models: per op, what changed in the spec's terms (arg renamed, default changed,
// gradient, cast rule, mappings, dialect levels), compared on the model so formatting edits never show.

import type { ArgModel, ArgType, Model, OpModel } from '../spec/model.ts';
import {
  castText,
  checkText,
  defaultText,
  dialectsText,
  gradText,
  onnxText,
  outText,
  relayText,
  signature,
  testsText,
} from '../emit/docs.ts';
import { hexId, opId } from '../emit/op-ids.ts';

export type ChangeKind =
  | 'op-added'
  | 'op-removed'
  | 'doc'
  | 'schema'
  | 'arg-added'
  | 'arg-removed'
  | 'arg-renamed'
  | 'arg-retyped'
  | 'args-reordered'
  | 'default-changed'
  | 'checks-changed'
  | 'arg-doc'
  | 'output'
  | 'compute'
  | 'gradient'
  | 'cast'
  | 'fusion'
  | 'relay'
  | 'onnx'
  | 'dialects'
  | 'tests'
  | 'other';

export interface SpecChange {
  readonly op: string;
  readonly kind: ChangeKind;
  /** The arg, by its name in the head model (its base name for a removed arg). */
  readonly arg?: string;
  readonly before?: string;
  readonly after?: string;
  /** One Markdown line. */
  readonly text: string;
}

export interface OpDiff {
  readonly op: string;
  readonly file: string;
  readonly status: 'added' | 'removed' | 'changed';
  readonly derivedFrom: string | null;
  readonly changes: readonly SpecChange[];
  readonly base?: OpModel;
  readonly head?: OpModel;
}

export interface SpecDiff {
  readonly ops: readonly OpDiff[];
}

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;
const argText = (a: ArgModel) => `${a.name}: ${a.type}${a.default ? ` = ${JSON.stringify(a.default.value)}` : ''}`;

export function diffModels(base: Model, head: Model): SpecDiff {
  const before = new Map(base.ops.map((op) => [op.name, op]));
  const after = new Map(head.ops.map((op) => [op.name, op]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const ops: OpDiff[] = [];
  for (const name of names) {
    const b = before.get(name);
    const h = after.get(name);
    if (b && !h) {
      ops.push({
        op: name,
        file: b.file,
        status: 'removed',
        derivedFrom: b.derivedFrom,
        base: b,
        changes: [
          {
            op: name,
            kind: 'op-removed',
            before: signature(b),
            text: `**op removed** ${code(signature(b))} (id ${hexId(opId(name))} is retired)`,
          },
        ],
      });
    } else if (!b && h) {
      ops.push({
        op: name,
        file: h.file,
        status: 'added',
        derivedFrom: h.derivedFrom,
        head: h,
        changes: [
          {
            op: name,
            kind: 'op-added',
            after: signature(h),
            text: `**op added** ${code(signature(h))}, id ${hexId(opId(name))}`,
          },
        ],
      });
    } else if (b && h) {
      const changes = diffOp(b, h);
      if (changes.length)
        ops.push({ op: name, file: h.file, status: 'changed', derivedFrom: h.derivedFrom, base: b, head: h, changes });
    }
  }
  return { ops };
}

/** Values a type accepts, coarsely: a type accepting a superset is wider (int → float, T → T?). */
const ACCEPTS: { [T in ArgType]: readonly string[] } = {
  Tensor: ['tensor'],
  'Tensor?': ['tensor', 'null'],
  'Tensor[]': ['tensors'],
  int: ['int'],
  'int?': ['int', 'null'],
  'int[]': ['ints'],
  'int[]?': ['ints', 'null'],
  'int|int[]': ['int', 'ints'],
  float: ['int', 'float'],
  'float?': ['int', 'float', 'null'],
  'float[]': ['ints', 'floats'],
  bool: ['bool'],
  dtype: ['dtype'],
  'dtype?': ['dtype', 'null'],
  string: ['string'],
  'string?': ['string', 'null'],
};

export function typeChange(from: ArgType, to: ArgType): 'same' | 'widened' | 'narrowed' | 'changed' {
  if (from === to) return 'same';
  const f = ACCEPTS[from] ?? [from];
  const t = ACCEPTS[to] ?? [to];
  if (f.every((v) => t.includes(v))) return 'widened';
  if (t.every((v) => f.includes(v))) return 'narrowed';
  return 'changed';
}

/**
 * Pairs base args with head args: same name, else a removed and an added arg of the same type at the
 * same position (or the only such pair) are one arg renamed.
 */
export function matchArgs(
  base: readonly ArgModel[],
  head: readonly ArgModel[],
): { pairs: [ArgModel, ArgModel][]; removed: ArgModel[]; added: ArgModel[] } {
  const headNames = new Set(head.map((a) => a.name));
  const baseNames = new Set(base.map((a) => a.name));
  let removed = base.filter((a) => !headNames.has(a.name));
  let added = head.filter((a) => !baseNames.has(a.name));
  const pairs: [ArgModel, ArgModel][] = base
    .filter((a) => headNames.has(a.name))
    .map((a) => [a, head.find((x) => x.name === a.name)!]);
  for (const r of [...removed]) {
    const i = base.indexOf(r);
    const sameSlot = added.find((a) => head.indexOf(a) === i && a.type === r.type);
    const sameType = added.filter((a) => a.type === r.type);
    const match =
      sameSlot ??
      (sameType.length === 1 && removed.filter((x) => x.type === r.type).length === 1 ? sameType[0] : undefined);
    if (match) {
      pairs.push([r, match]);
      removed = removed.filter((x) => x !== r);
      added = added.filter((x) => x !== match);
    }
  }
  return { pairs, removed, added };
}

function diffOp(b: OpModel, h: OpModel): SpecChange[] {
  const op = h.name;
  const out: SpecChange[] = [];
  const push = (kind: ChangeKind, what: string, before: string, after: string, arg?: string) => {
    if (before !== after)
      out.push({
        op,
        kind,
        before,
        after,
        ...(arg ? { arg } : {}),
        text: `**${what}**: ${code(before)} → ${code(after)}`,
      });
  };
  if (b.doc !== h.doc)
    out.push({ op, kind: 'doc', before: b.doc, after: h.doc, text: `**doc changed**: ${code(h.doc)}` });
  push(
    'schema',
    'schema',
    b.schema === b.name ? 'own args' : `reuses ${b.schema}`,
    h.schema === h.name ? 'own args' : `reuses ${h.schema}`,
  );
  out.push(...diffArgs(op, b.args, h.args));
  push('output', 'output rule', outText(b.out), outText(h.out));
  push('compute', 'compute', b.compute?.source ?? 'none', h.compute?.source ?? 'none');
  push('gradient', 'gradient', gradText(b), gradText(h));
  push('cast', 'cast rule', castText(b), castText(h));
  push('fusion', 'fusion pattern', b.fusion, h.fusion);
  push('relay', 'relay mapping', relayText(b), relayText(h));
  push('onnx', 'onnx mapping', onnxText(b), onnxText(h));
  out.push(...diffDialects(op, b, h));
  if (JSON.stringify(b.tests) !== JSON.stringify(h.tests)) {
    const keys = Object.keys({ ...b.tests, ...h.tests }).filter(
      (k) => JSON.stringify((b.tests as never)[k]) !== JSON.stringify((h.tests as never)[k]),
    );
    out.push({
      op,
      kind: 'tests',
      before: testsText(b),
      after: testsText(h),
      text: `**tests** (${keys.join(', ')}): ${code(testsText(b))} → ${code(testsText(h))}`,
    });
  }
  // Fields this diff has no words for yet (the model grows): still reported, never silently dropped.
  const known = new Set([
    'name',
    'doc',
    'category',
    'file',
    'schema',
    'args',
    'out',
    'compute',
    'grad',
    'fusion',
    'cast',
    'relay',
    'onnx',
    'dialects',
    'tests',
    'derivedFrom',
    'loc',
  ]);
  for (const k of Object.keys({ ...b, ...h })
    .filter((k) => !known.has(k))
    .sort()) {
    const x = stripLocs((b as never)[k]);
    const y = stripLocs((h as never)[k]);
    if (x !== y) out.push({ op, kind: 'other', before: x, after: y, text: `**${k}**: ${code(x)} → ${code(y)}` });
  }
  if (b.category !== h.category) push('other', 'category', b.category, h.category);
  return out;
}

function diffArgs(op: string, base: readonly ArgModel[], head: readonly ArgModel[]): SpecChange[] {
  const out: SpecChange[] = [];
  const { pairs, removed, added } = matchArgs(base, head);
  for (const r of removed)
    out.push({ op, kind: 'arg-removed', arg: r.name, before: argText(r), text: `**arg removed** ${code(argText(r))}` });
  for (const [b, h] of pairs) {
    if (b.name !== h.name)
      out.push({
        op,
        kind: 'arg-renamed',
        arg: h.name,
        before: b.name,
        after: h.name,
        text: `**arg renamed** ${code(b.name)} → ${code(h.name)}`,
      });
    const t = typeChange(b.type, h.type);
    if (t !== 'same')
      out.push({
        op,
        kind: 'arg-retyped',
        arg: h.name,
        before: b.type,
        after: h.type,
        text: `**arg retyped** ${code(h.name)}: ${code(b.type)} → ${code(h.type)} (${t})`,
      });
    if (defaultText(b) !== defaultText(h)) {
      out.push({
        op,
        kind: 'default-changed',
        arg: h.name,
        before: defaultText(b),
        after: defaultText(h),
        text: `**default changed** ${code(h.name)}: ${code(defaultText(b))} → ${code(defaultText(h))}`,
      });
    }
    const bc = b.checks.map(checkText).join(' and ') || 'none';
    const hc = h.checks.map(checkText).join(' and ') || 'none';
    if (bc !== hc)
      out.push({
        op,
        kind: 'checks-changed',
        arg: h.name,
        before: bc,
        after: hc,
        text: `**checks** ${code(h.name)}: ${code(bc)} → ${code(hc)}`,
      });
    if ((b.doc ?? '') !== (h.doc ?? ''))
      out.push({
        op,
        kind: 'arg-doc',
        arg: h.name,
        before: b.doc ?? '',
        after: h.doc ?? '',
        text: `**arg doc** ${code(h.name)}: ${code(h.doc ?? '')}`,
      });
  }
  for (const a of added) {
    const i = head.indexOf(a);
    const where = i === head.length - 1 ? 'last' : `at position ${i + 1}, before ${code(head[i + 1]!.name)}`;
    out.push({
      op,
      kind: 'arg-added',
      arg: a.name,
      after: argText(a),
      text: `**arg added** ${code(argText(a))}, ${where}${a.default ? '' : ' (required)'}`,
    });
  }
  // Order of the args both sides have, by their head names.
  const headName = new Map(pairs.map(([b, h]) => [b.name, h.name]));
  const baseOrder = base.filter((a) => headName.has(a.name)).map((a) => headName.get(a.name)!);
  const headOrder = head.filter((a) => baseOrder.includes(a.name)).map((a) => a.name);
  if (baseOrder.join() !== headOrder.join()) {
    out.push({
      op,
      kind: 'args-reordered',
      before: baseOrder.join(', '),
      after: headOrder.join(', '),
      text: `**args reordered**: ${code(baseOrder.join(', '))} → ${code(headOrder.join(', '))}`,
    });
  }
  return out;
}

function diffDialects(op: string, b: OpModel, h: OpModel): SpecChange[] {
  const out: SpecChange[] = [];
  const names = [...new Set([...b.dialects, ...h.dialects].map((d) => d.name))].sort();
  for (const name of names) {
    const x = b.dialects.find((d) => d.name === name);
    const y = h.dialects.find((d) => d.name === name);
    const desc = (d: typeof x) => (d ? `${d.name} ${d.level} (${d.kernel} kernel)` : 'none');
    if (desc(x) === desc(y)) continue;
    const what = !x
      ? 'dialect added'
      : !y
        ? 'dialect removed'
        : x.level !== y.level
          ? 'dialect level'
          : 'dialect kernel';
    out.push({
      op,
      kind: 'dialects',
      arg: name,
      before: desc(x),
      after: desc(y),
      text: `**${what}** ${code(name)}: ${code(desc(x))} → ${code(desc(y))}`,
    });
  }
  if (!out.length && dialectsText(b) !== dialectsText(h)) {
    out.push({
      op,
      kind: 'dialects',
      before: dialectsText(b),
      after: dialectsText(h),
      text: `**dialects**: ${code(dialectsText(b))} → ${code(dialectsText(h))}`,
    });
  }
  return out;
}

function stripLocs(v: unknown): string {
  return JSON.stringify(v, (k, x) => (k === 'loc' || k === 'offset' ? undefined : x)) ?? 'none';
}

/** Tensor inputs that have a gradient. */
export function gradInputsOf(op: OpModel): string[] {
  const g = op.grad;
  if (g.kind === 'none') return [];
  if (g.kind === 'formulas') return g.inputs.map((i) => i.name);
  return [...g.inputs];
}
