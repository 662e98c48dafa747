// Type inference: runs each call's generated type function over the graph's types (no data), so passes that change dtypes re-type what follows.

import { shapesEqual } from '../shape.ts';
import { Recorder } from './trace.ts';
import { definedVars, isAtom, mkVar, type Atom, type Graph, type Node, type TupleOut, type Var } from './ir.ts';
import { formatType } from './printer.ts';

/**
 * A copy of `g` whose every var carries the type its op's type function gives for the
 * (possibly changed) types of its inputs. Errors are the type functions' own, naming op and argument.
 */
export function inferTypes(g: Graph): Graph {
  const map = new Map<Var, Var>();
  const sym = new Recorder();
  const atom = (a: Atom): Atom => (a.kind === 'var' ? (map.get(a) ?? a) : a);
  const value = (a: unknown): unknown => {
    if (isAtom(a)) {
      const m = atom(a);
      return m.kind === 'var' ? sym.tensorOf(m) : m.value;
    }
    return Array.isArray(a) && a.some(isAtom) ? a.map(value) : a;
  };
  const nodes: Node[] = g.nodes.map((n): Node => {
    if (n.kind === 'call') {
      const decl = n.op.declare(n.op.schema.parse(n.op.name, n.args.map(value)));
      if (decl.kind === 'value') throw new Error(`infer: raf.op.${n.op.name} is a host op and cannot be a graph node`);
      const before = definedVars(n);
      const types = decl.kind === 'tuple' ? decl.outs : [decl.out];
      if (types.length !== before.length)
        throw new Error(`infer: raf.op.${n.op.name} now gives ${types.length} outputs, the graph has ${before.length}`);
      const vars = types.map((t, i) => mkVar(t, decl.device, before[i]!.hint));
      vars.forEach((v, i) => map.set(before[i]!, v));
      const out: Var | TupleOut = decl.kind === 'tuple' ? { kind: 'tuple', items: vars } : vars[0]!;
      return {
        ...n,
        args: n.args.map((a) =>
          isAtom(a) ? atom(a) : Array.isArray(a) && a.some(isAtom) ? a.map((x) => (isAtom(x) ? atom(x) : x)) : a,
        ),
        out,
      };
    }
    const inputs = n.inputs.map(atom);
    const params = n.fn.params.map((p, i) => {
      const a = inputs[i]!;
      return mkVar(a.kind === 'var' ? a.type : a.value, a.kind === 'var' ? a.device : a.value.device, p.hint);
    });
    const inner = inferTypes(rebind(n.fn, params));
    const res = inner.outputs[0]!;
    const out = mkVar(
      res.kind === 'var' ? res.type : res.value,
      res.kind === 'var' ? res.device : res.value.device,
      n.out.hint,
    );
    map.set(n.out, out);
    return { ...n, fn: inner, inputs, out };
  });
  return { params: g.params, nodes, outputs: g.outputs.map(atom) };
}

/** `g` with its params replaced by `params` (same count), every use following. */
export function rebind(g: Graph, params: readonly Var[]): Graph {
  const map = new Map<Var, Atom>(g.params.map((p, i) => [p, params[i]!]));
  const sub = (a: Atom): Atom => (a.kind === 'var' ? (map.get(a) ?? a) : a);
  const nodes = g.nodes.map((n): Node => {
    if (n.kind === 'fused') return { ...n, inputs: n.inputs.map(sub) };
    return {
      ...n,
      args: n.args.map((a) =>
        isAtom(a) ? sub(a) : Array.isArray(a) && a.some(isAtom) ? a.map((x) => (isAtom(x) ? sub(x) : x)) : a,
      ),
    };
  });
  return { params, nodes, outputs: g.outputs.map(sub) };
}

/** Checks that the types recorded in `g` are the ones inference gives; returns the mismatches as text. */
export function checkTypes(g: Graph): string[] {
  const inferred = inferTypes(g);
  const problems: string[] = [];
  g.nodes.forEach((n, i) => {
    const got = definedVars(inferred.nodes[i]!);
    definedVars(n).forEach((v, k) => {
      const m = got[k]!.type;
      if (m.dtype !== v.type.dtype || !shapesEqual(m.shape, v.type.shape)) {
        problems.push(
          `node ${i}${n.out.kind === 'tuple' ? `.${k}` : ''} (${n.kind === 'call' ? `raf.op.${n.op.name}` : 'fused'}): recorded ${formatType(v.type)}, inferred ${formatType(m)}`,
        );
      }
    });
  });
  return problems;
}
