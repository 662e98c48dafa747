// Turns a set of grouped calls into fused nodes: each group becomes a primitive function over its outside inputs.

import {
  eliminateDeadCode,
  isAtom,
  singleOut,
  mkVar,
  nodeInputs,
  type Atom,
  type CallNode,
  type FusedNode,
  type FusionOrigin,
  type Graph,
  type Node,
  type Var,
} from '../ir.ts';

export interface Group {
  readonly nodes: readonly CallNode[];
  readonly origin: FusionOrigin;
}

/** Rewrites `g` so each group of two or more calls runs as one fused node placed where its last call was. */
export function applyGroups(g: Graph, groups: readonly Group[]): Graph {
  const groupOf = new Map<Node, Group>();
  for (const grp of groups) if (grp.nodes.length > 1) for (const n of grp.nodes) groupOf.set(n, grp);
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    const grp = groupOf.get(n);
    if (!grp) nodes.push(n);
    else if (n === grp.nodes[grp.nodes.length - 1]) nodes.push(fuse(grp));
  }
  return eliminateDeadCode({ ...g, nodes });
}

function fuse(grp: Group): FusedNode {
  const inside = new Set<Var>(grp.nodes.map(singleOut));
  const outer: Var[] = [];
  const params = new Map<Var, Var>();
  const local = (a: Atom): Atom => {
    if (a.kind !== 'var' || inside.has(a)) return a;
    let p = params.get(a);
    if (!p) {
      p = mkVar(a.type, a.device);
      params.set(a, p);
      outer.push(a);
    }
    return p;
  };
  const body: CallNode[] = grp.nodes.map((n) => ({
    ...n,
    args: n.args.map((a) =>
      isAtom(a) ? local(a) : Array.isArray(a) && a.some(isAtom) ? a.map((x) => (isAtom(x) ? local(x) : x)) : a,
    ),
  }));
  for (const n of grp.nodes) nodeInputs(n).forEach(local);
  const sink = grp.nodes[grp.nodes.length - 1]!;
  return {
    kind: 'fused',
    fn: { params: outer.map((v) => params.get(v)!), nodes: body, outputs: [singleOut(sink)] },
    inputs: outer,
    // The group's result keeps the sink's var, so later calls read it unchanged.
    out: singleOut(sink),
    origin: grp.origin,
  };
}
