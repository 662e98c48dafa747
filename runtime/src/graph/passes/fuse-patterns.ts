// Pattern-based fusion (RAF's FuseDialect): dialect patterns registered with levels; a matched subgraph becomes one fused call of that dialect.

import { useCounts, type Atom, type CallNode, type Graph, type Node, type Var } from '../ir.ts';
import { applyGroups, type Group } from './group.ts';
import { ortRegions, type OrtRegionOptions } from './ort-regions.ts';

export type Pattern =
  | { readonly kind: 'op'; readonly ops: readonly string[]; readonly args: readonly Pattern[] }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'alt'; readonly options: readonly Pattern[] };

/** `isOp('matmul', 'dense')(a, b)` matches a call of any listed op whose leading args match. */
export const isOp =
  (...ops: string[]) =>
  (...args: Pattern[]): Pattern => ({ kind: 'op', ops, args });
export const wildcard = (): Pattern => ({ kind: 'wildcard' });
export const alt = (...options: Pattern[]): Pattern => ({ kind: 'alt', options });

export interface DialectPattern {
  readonly name: string;
  readonly dialect: string;
  readonly level: number;
  readonly pattern: Pattern;
}

const patterns: DialectPattern[] = [];

/** Registers a pattern; at one root, higher levels are tried first (as dispatch prefers higher dialect levels). */
export function registerPattern(pattern: Pattern, dialect: string, level: number, name: string): void {
  patterns.push({ name, dialect, level, pattern });
  patterns.sort((a, b) => b.level - a.level);
}

export function listPatterns(): readonly DialectPattern[] {
  return patterns;
}

/** Calls matched by `p` rooted at `a` (empty for a wildcard), or null. Inner calls must feed only the match. */
function match(
  p: Pattern,
  a: unknown,
  producer: ReadonlyMap<Var, CallNode>,
  uses: ReadonlyMap<Var, number>,
  root: boolean,
  taken: ReadonlySet<Node>,
): CallNode[] | null {
  switch (p.kind) {
    case 'wildcard':
      return typeof a === 'object' && a !== null ? [] : null;
    case 'alt':
      for (const o of p.options) {
        const m = match(o, a, producer, uses, root, taken);
        if (m) return m;
      }
      return null;
    case 'op': {
      const v = a as Atom;
      if (!v || v.kind !== 'var') return null;
      const n = producer.get(v);
      if (!n || taken.has(n) || !p.ops.includes(n.op.name)) return null;
      if (!root && uses.get(v) !== 1) return null;
      const inner: CallNode[] = [];
      for (let i = 0; i < p.args.length; i++) {
        const m = match(p.args[i]!, n.args[i], producer, uses, false, taken);
        if (!m) return null;
        inner.push(...m);
      }
      return [...inner, n];
    }
  }
}

/**
 * Fuses every match of the registered patterns (for `dialects`, default all), largest roots first. Naming `ort` in
 * `dialects` first forms ort regions (ort-regions.ts: connected calls onnxruntime runs as one session), which sit above
 * every other dialect's patterns as the ort dialect's heavy ops sit above wasm; `ortRegions` passes its options on.
 */
export function fuseDialect(
  g: Graph,
  opts: { dialects?: readonly string[]; ortRegions?: OrtRegionOptions } = {},
): Graph {
  if (opts.dialects?.includes('ort')) g = ortRegions(g, opts.ortRegions);
  const uses = useCounts(g);
  const producer = new Map<Var, CallNode>();
  for (const n of g.nodes) if (n.kind === 'call' && n.out.kind === 'var') producer.set(n.out, n);
  const taken = new Set<Node>();
  const groups: Group[] = [];
  const usable = patterns.filter((p) => !opts.dialects || opts.dialects.includes(p.dialect));
  // Later calls first, so a match reaches back over as much of a chain as its pattern allows.
  for (let i = g.nodes.length - 1; i >= 0; i--) {
    const n = g.nodes[i]!;
    if (n.kind !== 'call' || n.out.kind !== 'var' || taken.has(n)) continue;
    for (const dp of usable) {
      const m = match(dp.pattern, n.out, producer, uses, true, taken);
      if (!m || m.length < 2) continue;
      const order = new Map(g.nodes.map((x, k) => [x, k]));
      m.sort((x, y) => order.get(x)! - order.get(y)!);
      m.forEach((x) => taken.add(x));
      groups.push({ nodes: m, origin: { by: 'pattern', dialect: dp.dialect, pattern: dp.name, level: dp.level } });
      break;
    }
  }
  return applyGroups(g, groups);
}

// matmul + (bias) + activation, after RAF's CUTLASS matmul_fusion: the bare matmul is left to the rule-based pass.
const matmul = isOp('matmul', 'matmul_nt', 'matmul_tn', 'dense', 'batch_matmul')(wildcard(), wildcard());
const withBias = isOp('add')(matmul, wildcard());
registerPattern(alt(isOp('relu', 'gelu')(alt(withBias, matmul)), withBias), 'cpu', 10, 'matmul_fusion');
