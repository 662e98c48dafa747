// The graph IR: typed variables, base-op calls and fused groups in A-normal form; what trace records and passes rewrite.

import type { Device } from '../device.ts';
import type { AnyOpDef } from '../registry.ts';
import { keepAlive, type Tensor, type TensorType } from '../tensor.ts';

/** A value computed in the graph (or a parameter); identity is the object, names are only hints for printing. */
export interface Var {
  readonly kind: 'var';
  readonly type: TensorType;
  readonly device: Device;
  readonly hint?: string;
}

/** A tensor known while tracing (weights, `add(x, 1)`'s 1): it is baked into the graph. */
export interface Const {
  readonly kind: 'const';
  readonly value: Tensor;
}

export type Atom = Var | Const;

/** A tuple op's result (split's): one var per element, printed as projections `%3.0`, `%3.1`, ... */
export interface TupleOut {
  readonly kind: 'tuple';
  readonly items: readonly Var[];
}

/**
 * One call of a base op. `args` is positional in schema order: tensor fields hold atoms
 * (or lists of atoms), every other field its literal value as the call passed it.
 */
export interface CallNode {
  readonly kind: 'call';
  readonly op: AnyOpDef;
  readonly args: readonly unknown[];
  readonly out: Var | TupleOut;
}

/** Who formed a fused group: the rule-based pass (FuseTVM) or a dialect pattern (FuseDialect). */
export interface FusionOrigin {
  readonly by: 'rules' | 'pattern';
  readonly dialect: string;
  readonly pattern?: string;
  readonly level?: number;
}

/** A group of calls run as one kernel: `fn` is a primitive function over `inputs`. */
export interface FusedNode {
  readonly kind: 'fused';
  readonly fn: Graph;
  readonly inputs: readonly Atom[];
  readonly out: Var;
  readonly origin: FusionOrigin;
}

export type Node = CallNode | FusedNode;

export interface Graph {
  readonly params: readonly Var[];
  readonly nodes: readonly Node[];
  readonly outputs: readonly Atom[];
}

export function mkVar(type: TensorType, device: Device, hint?: string): Var {
  return Object.freeze({ kind: 'var', type: { shape: [...type.shape], dtype: type.dtype }, device, hint });
}

/** The vars a node defines: its output, or every element of a tuple op's result. */
export function definedVars(n: Node): readonly Var[] {
  return n.out.kind === 'tuple' ? n.out.items : [n.out];
}

/**
 * A node's single output. Tuple calls are opaque to fusion (a fused group has one output), so the passes that
 * need one var per node never see them; reaching one here is a bug in the pass.
 */
export function singleOut(n: Node): Var {
  if (n.out.kind === 'tuple')
    throw new Error(
      `raf.op.${n.kind === 'call' ? n.op.name : 'fused'} returns a tuple; this pass handles single-output calls only`,
    );
  return n.out;
}

/** Stores a call's result under the vars it defines: the value itself, or each element of a tuple's. */
export function bindOut<T>(env: Map<Var, T>, out: Var | TupleOut, value: T | readonly T[]): void {
  if (out.kind === 'var') env.set(out, value as T);
  else out.items.forEach((v, i) => env.set(v, (value as readonly T[])[i]!));
}

export function mkConst(value: Tensor): Const {
  // The graph holds it from now on: an enclosing valueAndGrad must not dispose it with its intermediates.
  keepAlive(value);
  return Object.freeze({ kind: 'const', value });
}

export function isAtom(v: unknown): v is Atom {
  return (
    typeof v === 'object' &&
    v !== null &&
    ((v as Atom).kind === 'var' || (v as Atom).kind === 'const') &&
    !Array.isArray(v)
  );
}

/** Every atom a node reads, in argument order. */
export function nodeInputs(n: Node): Atom[] {
  if (n.kind === 'fused') return [...n.inputs];
  const out: Atom[] = [];
  for (const a of n.args) {
    if (isAtom(a)) out.push(a);
    else if (Array.isArray(a)) for (const x of a) if (isAtom(x)) out.push(x);
  }
  return out;
}

export function typeOfAtom(a: Atom): TensorType {
  return a.kind === 'var' ? a.type : { shape: a.value.shape, dtype: a.value.dtype };
}

/** How many nodes (and graph outputs) read each var. */
export function useCounts(g: Graph): Map<Var, number> {
  const uses = new Map<Var, number>();
  const bump = (a: Atom) => {
    if (a.kind === 'var') uses.set(a, (uses.get(a) ?? 0) + 1);
  };
  for (const n of g.nodes) nodeInputs(n).forEach(bump);
  g.outputs.forEach(bump);
  return uses;
}

/** Rewrites a node's atoms through `map` (vars missing from the map stay). */
export function substitute(n: Node, map: ReadonlyMap<Var, Atom>): Node {
  const sub = (a: Atom): Atom => (a.kind === 'var' ? (map.get(a) ?? a) : a);
  if (n.kind === 'fused') return { ...n, inputs: n.inputs.map(sub) };
  return {
    ...n,
    args: n.args.map((a) =>
      isAtom(a) ? sub(a) : Array.isArray(a) && a.some(isAtom) ? a.map((x) => (isAtom(x) ? sub(x) : x)) : a,
    ),
  };
}

/** Number of calls a graph makes, counting a fused group once (what the executor dispatches). */
export function countKernels(g: Graph): number {
  return g.nodes.length;
}

/** Drops nodes whose results nothing reads (after a pass leaves some unused). */
export function eliminateDeadCode(g: Graph): Graph {
  const live = new Set<Var>();
  for (const a of g.outputs) if (a.kind === 'var') live.add(a);
  const kept: Node[] = [];
  for (let i = g.nodes.length - 1; i >= 0; i--) {
    const n = g.nodes[i]!;
    if (!definedVars(n).some((v) => live.has(v))) continue;
    kept.push(n);
    for (const a of nodeInputs(n)) if (a.kind === 'var') live.add(a);
  }
  return { ...g, nodes: kept.reverse() };
}
