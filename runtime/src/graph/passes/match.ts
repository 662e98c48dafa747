// What the pattern-rewriting passes (foldBatchNorm, foldScalarAffine, recognizeHardSwish, recognizeLayerNorm) share
// to match calls: args by schema name, atoms by kind, constant values, the single reader of a var, and the rewrite.

import type { Tensor } from '../../tensor.ts';
import { useCounts, type Atom, type CallNode, type Const, type Graph, type Node, type Var } from '../ir.ts';

export const isVar = (a: unknown): a is Var => typeof a === 'object' && a !== null && (a as Atom).kind === 'var';
export const isConst = (a: unknown): a is Const => typeof a === 'object' && a !== null && (a as Atom).kind === 'const';
/** A constant whose values can be read now (CPU memory; a GPU graph's constants are left alone). */
export const isCpuConst = (a: unknown): a is Const => isConst(a) && a.value.device.kind === 'cpu';

const fieldIndex = (n: CallNode, name: string): number =>
  (n.op.schema.fields as readonly { name: string }[]).findIndex((f) => f.name === name);

/** `n`'s argument `name` (by its op's schema). */
export const arg = (n: CallNode, name: string): unknown => n.args[fieldIndex(n, name)];

/** `n` with argument `name` replaced by `v`. */
export const withArg = (n: CallNode, name: string, v: unknown): CallNode => {
  const i = fieldIndex(n, name);
  return { ...n, args: n.args.map((a, k) => (k === i ? v : a)) };
};

export const values = (t: Tensor): ArrayLike<number> => t.dataSync() as ArrayLike<number>;

/**
 * A one-element float constant's value, or null; `cpuOnly` also refuses constants outside CPU memory. A constant
 * that cannot be read synchronously (a GPU buffer with no copy kept on the host) is null as well.
 */
export function scalar(a: unknown, cpuOnly: boolean): number | null {
  const c = cpuOnly ? (isCpuConst(a) ? a : null) : isConst(a) ? a : null;
  if (!c || c.value.size !== 1 || !c.value.dtype.startsWith('float') || !c.value.storage.readSync) return null;
  return Number(values(c.value)[0]);
}

/** `n`'s other operand when one of its tensor args (a, b) is `v`. */
export function other(n: CallNode, v: Var): unknown {
  const [a, b] = [arg(n, 'a'), arg(n, 'b')];
  return a === v ? b : b === v ? a : undefined;
}

/** The calls reading each var (once per reading arg), and `only(v)`: the one call reading a var used exactly once. */
export function readersOf(g: Graph): {
  readonly readers: ReadonlyMap<Var, readonly CallNode[]>;
  readonly only: (v: Var) => CallNode | undefined;
} {
  const uses = useCounts(g);
  const readers = new Map<Var, CallNode[]>();
  for (const n of g.nodes)
    if (n.kind === 'call') for (const a of n.args) if (isVar(a)) readers.set(a, [...(readers.get(a) ?? []), n]);
  return { readers, only: (v) => (uses.get(v) === 1 ? readers.get(v)?.[0] : undefined) };
}

/** `g` without the nodes in `drop`, each node in `replace` replaced (g itself when nothing is dropped). */
export function rewrite(g: Graph, drop: ReadonlySet<Node>, replace: ReadonlyMap<Node, Node>): Graph {
  if (!drop.size) return g;
  return { ...g, nodes: g.nodes.filter((n) => !drop.has(n)).map((n) => replace.get(n) ?? n) };
}
