// Emitter: stable op ids for serialized graphs (hash of "raf.op.<name>", like MegEngine's hashed tags) and their lock.

import { execFileSync } from 'node:child_process';
import type { Model, OpModel } from '../spec/model.ts';
import { SpecError, SpecErrors } from '../spec/errors.ts';
import { GENERATED, tsFile, type EmittedFile } from './files.ts';
import type { StubFile } from './stubs.ts';

export const OP_IDS_PATH = `${GENERATED}/op-ids.ts`;
/**
 * Every id ever handed out; a removed op keeps its entry so its id is never given to another op. Handed out means
 * committed: an id only ever in the working tree (an op added, then reverted or deleted before a commit) is dropped.
 */
export const OP_IDS_LOCK = 'specs/op-ids.lock.json';
export const OP_ID_HASH = 'fnv1a32("raf.op." + name)';

export interface OpIdLock {
  readonly hash: string;
  readonly ops: Readonly<Record<string, string>>;
}

/** FNV-1a, 32 bits, over the UTF-8 of the base op's full name: stable across runs, machines and versions. */
export function opId(name: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(`raf.op.${name}`)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export const hexId = (id: number) => `0x${id.toString(16).padStart(8, '0')}`;

/** Ids for every op; two ops (or an op and a retired locked one) sharing an id is a spec error. */
export function assignOpIds(model: Model, locked: Readonly<Record<string, string>> = {}): Map<string, number> {
  const ids = new Map<string, number>();
  const owner = new Map<number, string>(Object.entries(locked).map(([name, id]) => [Number(id), name]));
  const errors: SpecError[] = [];
  for (const op of model.ops) {
    const id = opId(op.name);
    const other = owner.get(id);
    if (other !== undefined && other !== op.name) {
      const retired = !model.ops.some((o) => o.name === other);
      errors.push(
        new SpecError(
          op.loc,
          `op id ${hexId(id)} of '${op.name}' collides with ${retired ? `retired op '${other}' (${OP_IDS_LOCK})` : `'${other}'`}`,
          'rename the op: saved graphs would load one op as the other',
        ),
      );
    }
    owner.set(id, op.name);
    ids.set(op.name, id);
  }
  if (errors.length) throw new SpecErrors(errors);
  return ids;
}

export function emitOpIds(model: Model): EmittedFile[] {
  const ids = assignOpIds(model);
  return [
    tsFile(OP_IDS_PATH, 'op-ids', 'specs/**/*.yaml', (sf) => {
      sf.addVariableStatement({
        isExported: true,
        docs: [
          `Stable id of every base op, ${OP_ID_HASH}; graphs and exported models store these. Baseline: ${OP_IDS_LOCK}.`,
        ],
        declarations: [
          {
            name: 'OP_IDS',
            initializer: `{\n${model.ops.map((op) => `${op.name}: ${hexId(ids.get(op.name)!)}`).join(',\n')}\n} as const`,
          },
        ],
      });
      sf.addTypeAlias({ name: 'OpIdName', isExported: true, type: 'keyof typeof OP_IDS' });
      sf.addVariableStatement({
        isExported: true,
        docs: ['The op a stored id names, for loading serialized graphs.'],
        declarations: [
          {
            name: 'OP_BY_ID',
            type: 'ReadonlyMap<number, OpIdName>',
            initializer: 'new Map(Object.entries(OP_IDS).map(([name, id]) => [id, name as OpIdName]))',
          },
        ],
      });
    }),
  ];
}

/**
 * The lock: created with every op's id, then extended (by `npm run gen`) when ops are added. An op that no longer
 * exists keeps its entry only when `released()` (the ops of the lock at git HEAD) names it; without `released` every
 * entry is kept.
 */
export function emitOpIdLock(model: Model, released?: () => ReadonlySet<string>): StubFile[] {
  const render = (ops: Record<string, string>) =>
    `${JSON.stringify({ hash: OP_ID_HASH, ops: Object.fromEntries(Object.entries(ops).sort(([a], [b]) => (a < b ? -1 : 1))) }, null, 2)}\n`;
  const current = (locked: Readonly<Record<string, string>>) => {
    const ids = assignOpIds(model, locked);
    const ops: Record<string, string> = { ...locked };
    for (const op of model.ops) ops[op.name] ??= hexId(ids.get(op.name)!);
    return ops;
  };
  return [
    {
      path: OP_IDS_LOCK,
      content: render(current({})),
      emitter: 'op-ids',
      source: 'specs/**/*.yaml',
      kind: 'stub',
      update: (existing) => {
        const lock = parseLock(existing);
        const live = new Set(model.ops.map((op) => op.name));
        let kept = lock.ops;
        if (released && Object.keys(lock.ops).some((name) => !live.has(name))) {
          const committed = released();
          kept = Object.fromEntries(Object.entries(lock.ops).filter(([name]) => live.has(name) || committed.has(name)));
        }
        const ops = current(kept);
        const same =
          Object.keys(ops).length === Object.keys(lock.ops).length && Object.keys(ops).every((n) => n in lock.ops);
        return same ? existing : render(ops);
      },
    },
  ];
}

export function parseLock(text: string): OpIdLock {
  const fail = (offset: number, message: string, hint = `restore it from git (git checkout -- ${OP_IDS_LOCK})`) => {
    const before = text.slice(0, Math.max(0, Math.min(offset, text.length))).split('\n');
    throw new SpecErrors([
      new SpecError({ file: OP_IDS_LOCK, line: before.length, col: before.at(-1)!.length + 1 }, message, hint),
    ]);
  };
  let data: Partial<OpIdLock>;
  try {
    data = JSON.parse(text) as Partial<OpIdLock>;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const pos = /position (\d+)/.exec(msg);
    return fail(
      pos ? Number(pos[1]) : text.length,
      `not valid JSON: ${msg.replace(/ in JSON at position \d+.*$/, '')}`,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return fail(0, 'the lock must be a JSON object { hash, ops }');
  const ops = (data.ops ?? {}) as unknown;
  if (typeof ops !== 'object' || ops === null || Array.isArray(ops))
    return fail(Math.max(0, text.indexOf('"ops"')), "'ops' must map op names to ids");
  for (const [name, id] of Object.entries(ops as Record<string, unknown>)) {
    if (typeof id !== 'string' || !/^0x[0-9a-f]{8}$/.test(id))
      return fail(
        Math.max(0, text.indexOf(`"${name}"`)),
        `id of '${name}' is ${JSON.stringify(id)}, not 0x followed by 8 hex digits`,
      );
  }
  return { hash: String(data.hash ?? OP_ID_HASH), ops: { ...(ops as Record<string, string>) } };
}

/** Ops whose id in the lock differs from the hash today (only a change of hash scheme does that). */
export function lockMismatches(ops: readonly OpModel[], lock: OpIdLock): { op: string; locked: string; now: string }[] {
  return ops.flatMap((op) => {
    const locked = lock.ops[op.name];
    const now = hexId(opId(op.name));
    return locked !== undefined && locked !== now ? [{ op: op.name, locked, now }] : [];
  });
}

/**
 * The ops the lock names at git HEAD: the ids handed out in a commit (serialized graphs may hold them). Empty when
 * the root is not in a git repository, has no commit yet, or the lock was never committed.
 */
export function releasedOpIds(root: string): ReadonlySet<string> {
  try {
    const text = execFileSync('git', ['show', `HEAD:./${OP_IDS_LOCK}`], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 << 20,
    });
    return new Set(Object.keys(parseLock(text).ops));
  } catch {
    return new Set();
  }
}
