// Control flow in graph mode: `if(cond, inputs, branches)` runs one of two graphs, picked by a condition computed at
// run time (ONNX If), so the branch not taken costs nothing. It is no base op (not in the registry): the cpu dialect
// serves it on the CPU, where the condition can be read synchronously; elsewhere importers select with `where`.

import { CPU } from '../device.ts';
import { registerDialectOps, type AnyDialectOp } from '../dialect.ts';
import { OpError } from '../errors.ts';
import type { AnyOpDef } from '../registry.ts';
import { fromStorage, Tensor, type TensorType } from '../tensor.ts';
import { reshape } from '../generated/api/reshape.ts';
import { where } from '../generated/api/where.ts';
import { execute } from './executor.ts';
import { definedVars, substitute, type Atom, type CallNode, type Graph, type Node, type Var } from './ir.ts';
import { Recorder } from './trace.ts';

/** The two graphs of an `if` call: each takes the call's inputs, in order, and returns values of `outTypes`. */
export interface IfBranches {
  readonly then: Graph;
  readonly else: Graph;
  readonly outTypes: readonly TensorType[];
}

export const IF_OP_NAME = 'if';

interface IfArgs {
  readonly cond: Tensor;
  readonly inputs: readonly Tensor[];
  readonly branches: IfBranches;
}

/**
 * `if(cond, inputs, branches)`: branches.then(...inputs) where the one-element `cond` is true, else
 * branches.else(...inputs); one output or a tuple of them. Opaque to fusion; no gradient.
 */
export const IF_OP: AnyOpDef = {
  name: IF_OP_NAME,
  doc: 'Runs one of two graphs on the same inputs, picked by a condition computed at run time (ONNX If).',
  schema: {
    fields: [
      { name: 'cond', type: 'Tensor' },
      { name: 'inputs', type: 'Tensor[]' },
      // Two graphs; the field type only describes the value for messages.
      { name: 'branches', type: 'string' },
    ],
    parse: (_op: string, positional: readonly unknown[]): IfArgs => ({
      cond: positional[0] as Tensor,
      inputs: positional[1] as Tensor[],
      branches: positional[2] as IfBranches,
    }),
  },
  tensorArgs: ['cond', 'inputs'],
  type: (a: IfArgs) => ({
    args: a,
    out: a.branches.outTypes.length === 1 ? a.branches.outTypes[0]! : a.branches.outTypes,
  }),
  declare: (a: IfArgs) => {
    const device = a.cond.device ?? CPU;
    const outs = a.branches.outTypes;
    return outs.length === 1
      ? { kind: 'tensor', args: a, out: outs[0]!, device }
      : { kind: 'tuple', args: a, outs, device };
  },
  fusion: 'opaque',
  cast: null,
  grad: {
    saves: [],
    inputs: ['inputs'],
    fn: () => {
      throw new OpError(
        IF_OP_NAME,
        'a branch picked at run time has no gradient here: import the model for training (train.onnxParams), which ' +
          'computes both branches and selects with where',
      );
    },
  },
  source: 'runtime/src/graph/control.ts',
};

/** A branch's result as the call's own: a value the branch passed through (an input, a constant) is copied. */
function owned(t: Tensor, inputs: readonly Tensor[], g: Graph, k: number): Tensor {
  const out = g.outputs[k]!;
  if (out.kind === 'var' && !g.params.includes(out) && !inputs.includes(t)) return t;
  return fromStorage(t.shape, t.dtype, t.dataSync().slice());
}

registerDialectOps([
  {
    op: IF_OP_NAME,
    dialect: 'cpu',
    level: 0,
    bridge: {
      inputs: (a: IfArgs) => ({ cond: a.cond, inputs: a.inputs }),
      attrs: (a: IfArgs) => a.branches,
      key: () => 'if',
    },
    // The branches come with each call (as attrs), not with the build: one kernel serves every `if`.
    build: () => (ins: { cond: Tensor; inputs: readonly Tensor[] }, branches: IfBranches) => {
      const g = Number(ins.cond.dataSync()[0]) ? branches.then : branches.else;
      const outs = execute(g, ins.inputs).map((t, k) => owned(t, ins.inputs, g, k));
      return outs.length === 1 ? outs[0]! : outs;
    },
  },
] as AnyDialectOp[]);

export function isIf(n: Node): n is CallNode {
  return n.kind === 'call' && n.op.name === IF_OP_NAME;
}

/** `g`'s nodes, then those of its `if` calls' branches (and theirs). */
export function allNodes(g: Graph): Node[] {
  const out: Node[] = [];
  const walk = (h: Graph): void => {
    for (const n of h.nodes) {
      out.push(n);
      if (isIf(n)) {
        const b = n.args[2] as IfBranches;
        walk(b.then);
        walk(b.else);
      }
    }
  };
  walk(g);
  return out;
}

/**
 * `g` with `pass` applied to the branches of its `if` calls (and theirs): a session's passes (fusion, casts) reach
 * the graphs that run inside them.
 */
export function mapBranches(g: Graph, pass: (g: Graph) => Graph): Graph {
  if (!g.nodes.some(isIf)) return g;
  return {
    ...g,
    nodes: g.nodes.map((n) => {
      if (!isIf(n)) return n;
      const b = n.args[2] as IfBranches;
      const branches: IfBranches = {
        ...b,
        then: mapBranches(pass(b.then), pass),
        else: mapBranches(pass(b.else), pass),
      };
      return { ...n, args: [n.args[0], n.args[1], branches] };
    }),
  };
}

/**
 * `g` with each `if` call replaced by both branches' calls and a `where` per output, as importers select off the CPU:
 * a graph moving to a device that cannot read a condition synchronously (moveGraph) computes both branches.
 */
export function selectBranches(g: Graph): Graph {
  if (!g.nodes.some(isIf)) return g;
  const nodes: Node[] = [];
  const renamed = new Map<Var, Atom>();
  for (const original of g.nodes) {
    const n = substitute(original, renamed);
    if (!isIf(n)) {
      nodes.push(n);
      continue;
    }
    const [cond, inputs, branches] = n.args as [Atom, readonly Atom[], IfBranches];
    const inline = (fn: Graph): Atom[] => {
      const h = selectBranches(fn);
      const bound = new Map<Var, Atom>(h.params.map((p, i) => [p, inputs[i]!]));
      for (const b of h.nodes) nodes.push(substitute(b, bound));
      return h.outputs.map((a) => (a.kind === 'var' ? (bound.get(a) ?? a) : a));
    };
    const [yes, no] = [inline(branches.then), inline(branches.else)];
    const rec = new Recorder();
    const tensorOf = (a: Atom) => (a.kind === 'var' ? rec.tensorOf(a) : a.value);
    const picked = rec.run(() => {
      const c = reshape(tensorOf(cond), []);
      return yes.map((a, k) => where(c, tensorOf(a), tensorOf(no[k]!)));
    });
    nodes.push(...rec.nodes);
    definedVars(n).forEach((v, k) => renamed.set(v, rec.atomOf(picked[k]!)));
  }
  return { ...g, nodes, outputs: g.outputs.map((a) => (a.kind === 'var' ? (renamed.get(a) ?? a) : a)) };
}
