// FuseEpilogues: fusion for the CPU where it pays today. fuseOps' groups run as JavaScript loops on the CPU, slower
// than the wasm dialect's SIMD kernel per op, except a conv2d / matmul / dense with a bias, activation and residual
// epilogue, which runs as the anchor's wasm kernel plus one in-place wasm pass. This pass keeps those groups (a group
// that starts with one keeps that part) and returns every other call to the graph; batch_norm folding, hardswish,
// layer norm and attention recognition come with fuseOps (`attention: false` leaves attention spelled out).

import { hasWasmEpilogue } from '../fused-cpu.ts';
import {
  mkVar,
  nodeInputs,
  substitute,
  type Atom,
  type CallNode,
  type FusedNode,
  type Graph,
  type Node,
  type Var,
} from '../ir.ts';
import { fuseOps } from './fuse.ts';
import { sinkReshapes } from './sink-reshapes.ts';

export function fuseEpilogues(g: Graph, opts: { attention?: boolean } = {}): Graph {
  const fused = fuseOps(sinkReshapes(g), { dialect: 'cpu', ...opts });
  const nodes: Node[] = [];
  for (const n of fused.nodes) {
    if (n.kind !== 'fused' || hasWasmEpilogue(n)) {
      nodes.push(n);
      continue;
    }
    const result = n.fn.outputs[0]!;
    if (result.kind !== 'var' || n.fn.nodes.some((c) => c.kind !== 'call') || !n.fn.nodes.some((c) => c.out === result))
      return g;
    const calls = n.fn.nodes as readonly CallNode[];
    // The group's calls, its params read as the group's inputs and its result written to the group's var.
    const map = new Map<Var, Atom>(n.fn.params.map((p, i) => [p, n.inputs[i]!]));
    let rest = calls;
    const head = epiloguePrefix(n, calls);
    if (head) {
      nodes.push(head.node);
      map.set(head.last, head.node.out);
      rest = calls.slice(head.length);
    }
    for (const inner of rest) {
      const sub = substitute(inner, map);
      nodes.push(sub.out === result ? { ...sub, out: n.out } : sub);
    }
  }
  return { ...fused, nodes };
}

/** The longest leading part of the group's calls (two at least) that runs as a wasm epilogue group, as its own group. */
function epiloguePrefix(
  n: FusedNode,
  calls: readonly CallNode[],
): { node: FusedNode; last: Var; length: number } | null {
  for (let k = calls.length - 1; k >= 2; k--) {
    const prefix = calls.slice(0, k);
    const last = prefix[k - 1]!.out;
    if (last.kind !== 'var') return null;
    // Only the prefix's result may be read after it.
    const inside = new Set(prefix.map((c) => c.out));
    if (calls.slice(k).some((c) => nodeInputs(c).some((a) => a !== last && inside.has(a as Var)))) continue;
    const used = new Set(prefix.flatMap((c) => nodeInputs(c)));
    const keep = n.fn.params.map((p, i) => [p, i] as const).filter(([p]) => used.has(p));
    const node: FusedNode = {
      kind: 'fused',
      fn: { params: keep.map(([p]) => p), nodes: prefix, outputs: [last] },
      inputs: keep.map(([, i]) => n.inputs[i]!),
      out: mkVar(last.type, last.device),
      origin: n.origin,
    };
    if (hasWasmEpilogue(node)) return { node, last, length: k };
  }
  return null;
}
